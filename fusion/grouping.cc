#include "fusion/grouping.h"

#include <algorithm>
#include <queue>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fusion/op_class.h"

namespace kiln {
namespace {

struct Decision {
  bool ok = false;
  std::string reason;
};

Decision Accept() { return {true, ""}; }
Decision Reject(std::string reason) { return {false, std::move(reason)}; }

std::string Quoted(const Node& node) { return absl::StrCat("\"", absl::CEscape(node.name), "\""); }

class Grouper {
 public:
  Grouper(const Graph& graph, bool fuse, const std::vector<bool>& folded, const std::vector<AttentionChain>& attention)
      : graph_(graph),
        fuse_(fuse),
        folded_(folded),
        attention_(attention),
        group_of_(graph.size(), -1),
        readers_(graph.size()) {}

  Grouping Run();

 private:
  struct GroupState {
    Group group;
    NodeId min_node = 0;
    NodeId max_node = 0;
    absl::flat_hash_set<int> reads_from;  // groups whose outputs this group reads
  };

  const Node& node(NodeId id) const { return graph_.node(id); }
  // Reshapes, and transposes a matmul reads as its operand layout: no kernel.
  bool IsView(NodeId id) const { return ClassifyNode(graph_, id) == OpClass::kView || folded_[id]; }
  // The group whose memory an operand lives in: views resolve to their root.
  int SourceGroup(NodeId id) const;
  NodeId Root(NodeId id) const;
  Decision CanJoin(NodeId n, int gid) const;
  Decision CanJoinElementwise(NodeId n, const GroupState& g, int gid) const;
  Decision CanJoinRowReduction(NodeId n, const Group& group) const;
  bool WouldCycle(NodeId n, int gid) const;
  bool Reaches(int from, int target) const;
  void Place(NodeId n, int gid);
  int NewGroup(NodeId n);
  // The row or pointwise group that absorbs pointwise group `gid`, or -1 (see AbsorbBroadcastProducers).
  int AbsorbingGroup(int gid, const std::vector<std::vector<NodeId>>& users) const;
  void AbsorbBroadcastProducers();
  std::vector<int> LaunchOrder() const;
  std::string Explain(NodeId producer, NodeId consumer) const;

  const Graph& graph_;
  const bool fuse_;
  const std::vector<bool>& folded_;
  const std::vector<AttentionChain>& attention_;
  std::vector<int> group_of_;
  std::vector<GroupState> groups_;
  std::vector<std::vector<int>> readers_;  // per tensor: groups that read it from memory
  // Per consumer: the producer groups it did not join, and why.
  std::vector<std::vector<std::pair<int, std::string>>> rejections_;
};

NodeId Grouper::Root(NodeId id) const {
  while (IsView(id)) id = node(id).operands[0];
  return id;
}

int Grouper::SourceGroup(NodeId id) const { return group_of_[Root(id)]; }

Decision Grouper::CanJoinElementwise(NodeId n, const GroupState& g, int gid) const {
  const Dims& shape = node(n).shape;
  const Group& group = g.group;
  std::vector<Dims> allowed_operand_shapes;
  switch (group.kind) {
    case KernelKind::kPointwise:
    case KernelKind::kMatmul:
      if (shape != group.shape) {
        return Reject(absl::StrCat("consumer shape ", DimsString(shape), " differs from the ",
                                   KernelKindName(group.kind), " kernel's iteration shape ",
                                   DimsString(group.shape)));
      }
      allowed_operand_shapes = {group.shape};
      break;
    case KernelKind::kRowReduction:
      if (shape == group.shape) {
        allowed_operand_shapes = {group.shape, group.row_shape};
      } else if (shape == group.row_shape || shape == group.reduced_shape) {
        allowed_operand_shapes = {group.row_shape, group.reduced_shape};
      } else {
        return Reject(absl::StrCat("consumer shape ", DimsString(shape),
                                   " is neither the rows ", DimsString(group.row_shape),
                                   " nor the full shape ", DimsString(group.shape),
                                   " of the row kernel"));
      }
      break;
    default:
      return Reject(absl::StrCat("a ", KernelKindName(group.kind), " kernel takes no fused consumers"));
  }
  for (NodeId p : node(n).operands) {
    if (group_of_[p] != gid) continue;
    const Dims& operand_shape = node(p).shape;
    if (std::find(allowed_operand_shapes.begin(), allowed_operand_shapes.end(), operand_shape) ==
        allowed_operand_shapes.end()) {
      return Reject(absl::StrCat("operand ", Quoted(node(p)), " ", DimsString(operand_shape),
                                 " would be broadcast to ", DimsString(shape),
                                 " inside the kernel; it is materialized instead"));
    }
  }
  return Accept();
}

// A row reduction joins a pointwise kernel over its full shape (as its
// prologue) or a row kernel over the same rows.
Decision Grouper::CanJoinRowReduction(NodeId n, const Group& group) const {
  const RowGeometry geometry = *RowGeometryOf(graph_, n);
  switch (group.kind) {
    case KernelKind::kPointwise:
      if (group.shape == geometry.full_shape) return Accept();
      return Reject(absl::StrCat("reduction over rows of ", DimsString(geometry.full_shape),
                                 " does not match the pointwise kernel's shape ", DimsString(group.shape)));
    case KernelKind::kRowReduction:
      if (group.shape == geometry.full_shape && group.row_shape == geometry.row_shape) return Accept();
      return Reject(absl::StrCat("reduction to rows ", DimsString(geometry.row_shape), " of ",
                                 DimsString(geometry.full_shape), " does not match the row kernel's rows ",
                                 DimsString(group.row_shape), " of ", DimsString(group.shape)));
    case KernelKind::kMatmul:
      return Reject(absl::StrCat("the producer is a matmul, whose kernel fuses an elementwise epilogue only; "
                                 "the reduction over rows of ", DimsString(geometry.full_shape),
                                 " runs in its own kernel"));
    default:
      return Reject(absl::StrCat("a ", KernelKindName(group.kind), " kernel takes no fused consumers"));
  }
}

Decision Grouper::CanJoin(NodeId n, int gid) const {
  const GroupState& g = groups_[gid];
  for (NodeId p : node(n).operands) {
    if (IsView(p) && SourceGroup(p) == gid) {
      return Reject(absl::StrCat("operand ", Quoted(node(p)),
                                 " is a reshape of this kernel's own output, read back from memory"));
    }
  }
  Decision decision;
  switch (ClassifyNode(graph_, n)) {
    case OpClass::kElementwise: decision = CanJoinElementwise(n, g, gid); break;
    case OpClass::kRowReduction: decision = CanJoinRowReduction(n, g.group); break;
    case OpClass::kMatmul: decision = Reject("consumer is a matmul operand, read from memory by tiles"); break;
    case OpClass::kReduction:
      decision = Reject(absl::StrCat("reduction over non-trailing axes [", absl::StrJoin(node(n).axes, ","),
                                     "] runs as its own kernel"));
      break;
    case OpClass::kTranspose: decision = Reject("a transpose runs as its own kernel"); break;
    case OpClass::kSlice: decision = Reject("a slice runs as its own kernel"); break;
    case OpClass::kSource:
    case OpClass::kView: decision = Reject("not a computation"); break;
  }
  if (decision.ok && WouldCycle(n, gid)) {
    return Reject("fusing would create a cycle between kernels");
  }
  return decision;
}

// Joining n to gid creates a cycle exactly when an operand of n that lives in
// another group depends, through groups, on gid.
bool Grouper::WouldCycle(NodeId n, int gid) const {
  for (NodeId p : node(n).operands) {
    const int h = SourceGroup(p);
    if (h >= 0 && h != gid && Reaches(h, gid)) return true;
  }
  return false;
}

bool Grouper::Reaches(int from, int target) const {
  const NodeId target_min = groups_[target].min_node;
  std::vector<int> stack = {from};
  absl::flat_hash_set<int> seen = {from};
  while (!stack.empty()) {
    const int g = stack.back();
    stack.pop_back();
    if (g == target) return true;
    // A group whose nodes all precede the target's first node cannot depend on it.
    if (groups_[g].max_node < target_min) continue;
    for (int next : groups_[g].reads_from) {
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
  return false;
}

void Grouper::Place(NodeId n, int gid) {
  GroupState& g = groups_[gid];
  g.group.nodes.push_back(n);
  g.max_node = n;
  group_of_[n] = gid;
  if (ClassifyNode(graph_, n) == OpClass::kRowReduction && g.group.kind == KernelKind::kPointwise) {
    const RowGeometry geometry = *RowGeometryOf(graph_, n);
    g.group.kind = KernelKind::kRowReduction;
    g.group.shape = geometry.full_shape;
    g.group.row_shape = geometry.row_shape;
    g.group.reduced_shape = geometry.reduced_shape;
  }
  for (NodeId p : node(n).operands) {
    const int h = SourceGroup(p);
    if (h == gid) continue;
    if (h >= 0) g.reads_from.insert(h);
    const NodeId root = Root(p);
    if (ClassifyNode(graph_, root) != OpClass::kSource || node(root).op == OpKind::kInput) {
      std::vector<int>& readers = readers_[root];
      if (std::find(readers.begin(), readers.end(), gid) == readers.end()) readers.push_back(gid);
    }
  }
}

int Grouper::NewGroup(NodeId n) {
  GroupState state;
  state.min_node = n;
  state.max_node = n;
  switch (ClassifyNode(graph_, n)) {
    case OpClass::kRowReduction: {
      const RowGeometry geometry = *RowGeometryOf(graph_, n);
      state.group.kind = KernelKind::kRowReduction;
      state.group.shape = geometry.full_shape;
      state.group.row_shape = geometry.row_shape;
      state.group.reduced_shape = geometry.reduced_shape;
      break;
    }
    case OpClass::kMatmul: state.group.kind = KernelKind::kMatmul; break;
    case OpClass::kReduction: state.group.kind = KernelKind::kReduction; break;
    case OpClass::kTranspose: state.group.kind = KernelKind::kTranspose; break;
    case OpClass::kSlice: state.group.kind = KernelKind::kSlice; break;
    default: state.group.kind = KernelKind::kPointwise; break;
  }
  if (state.group.shape.empty()) state.group.shape = node(n).shape;
  groups_.push_back(std::move(state));
  const int gid = static_cast<int>(groups_.size()) - 1;
  Place(n, gid);
  return gid;
}

// Small pointwise groups are not worth their own kernel when they only turn
// graph inputs into a broadcast operand of one row or pointwise kernel:
// layernorm's casts of its bf16 weight and bias [N] planned as two kernels
// of 5 us each before the 160 us row kernel, plus two dependencies in the
// replayed graph (and, over rows of 1, where the normalization is pointwise,
// beside it). Computed per element inside the kernel they cost a few
// instructions and no HBM traffic beyond reading their inputs once.
constexpr size_t kMaxAbsorbedNodes = 4;

int Grouper::AbsorbingGroup(int gid, const std::vector<std::vector<NodeId>>& users) const {
  const Group& group = groups_[gid].group;
  if (group.kind != KernelKind::kPointwise || group.nodes.size() > kMaxAbsorbedNodes) return -1;
  int target = -1;
  for (NodeId n : group.nodes) {
    if (ClassifyNode(graph_, n) != OpClass::kElementwise) return -1;
    if (std::find(graph_.outputs().begin(), graph_.outputs().end(), n) != graph_.outputs().end()) return -1;
    for (NodeId p : node(n).operands) {
      if (group_of_[p] != gid && ClassifyNode(graph_, p) != OpClass::kSource) return -1;
    }
    for (NodeId u : users[n]) {
      const int h = group_of_[u];
      if (h == gid) continue;
      if (h < 0 || (target >= 0 && h != target)) return -1;
      const Group& absorbing = groups_[h].group;
      if ((absorbing.kind != KernelKind::kRowReduction && absorbing.kind != KernelKind::kPointwise) ||
          node(u).shape != absorbing.shape || NumElements(group.shape) >= NumElements(absorbing.shape)) {
        return -1;
      }
      target = h;
    }
  }
  return target;
}

void Grouper::AbsorbBroadcastProducers() {
  std::vector<std::vector<NodeId>> users(graph_.size());
  for (NodeId n = 0; n < graph_.size(); ++n) {
    for (NodeId p : node(n).operands) {
      if (users[p].empty() || users[p].back() != n) users[p].push_back(n);
    }
  }
  for (int gid = 0; gid < static_cast<int>(groups_.size()); ++gid) {
    const int target = AbsorbingGroup(gid, users);
    if (target < 0) continue;
    GroupState& absorbing = groups_[target];
    for (NodeId n : groups_[gid].group.nodes) {
      absorbing.group.nodes.insert(std::upper_bound(absorbing.group.nodes.begin(), absorbing.group.nodes.end(), n),
                                   n);
      absorbing.group.broadcast_nodes.push_back(n);
      absorbing.min_node = std::min(absorbing.min_node, n);
      group_of_[n] = target;
    }
    absorbing.reads_from.erase(gid);
    groups_[gid].group.nodes.clear();
  }
}

std::vector<int> Grouper::LaunchOrder() const {
  const int count = static_cast<int>(groups_.size());
  std::vector<int> pending(count, 0);
  std::vector<std::vector<int>> dependents(count);
  for (int g = 0; g < count; ++g) {
    for (int h : groups_[g].reads_from) {
      ++pending[g];
      dependents[h].push_back(g);
    }
  }
  // Among ready groups, the one whose first node comes first: deterministic and
  // close to the graph's own order.
  using Entry = std::pair<NodeId, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (int g = 0; g < count; ++g) {
    if (pending[g] == 0 && !groups_[g].group.nodes.empty()) ready.push({groups_[g].min_node, g});
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int g = ready.top().second;
    ready.pop();
    order.push_back(g);
    for (int d : dependents[g]) {
      if (--pending[d] == 0) ready.push({groups_[d].min_node, d});
    }
  }
  return order;
}

std::string Grouper::Explain(NodeId producer, NodeId consumer) const {
  if (folded_[consumer]) {
    return "consumer is a transpose that matmuls read as their operand layout: the producer is materialized";
  }
  if (folded_[producer]) {
    return absl::StrCat("operand is a transpose of ", Quoted(node(Root(producer))),
                        ", read from memory by the matmul in swapped layout");
  }
  if (ClassifyNode(graph_, consumer) == OpClass::kView) {
    return "consumer is a reshape, a view of memory: the producer is materialized";
  }
  // A view's rejection is recorded against its root's kernel.
  const int h = SourceGroup(producer);
  for (const auto& [gid, reason] : rejections_[consumer]) {
    if (gid == h) return reason;
  }
  if (ClassifyNode(graph_, producer) == OpClass::kView) {
    return absl::StrCat("operand is a reshape, a view of ", Quoted(node(Root(producer))),
                        " read from memory");
  }
  return "consumer was fused into the kernel of another operand";
}

Grouping Grouper::Run() {
  rejections_.resize(graph_.size());
  // Attention chains first: their nodes are one kernel, decided as a whole.
  for (const AttentionChain& chain : attention_) {
    const int gid = NewGroup(chain.nodes.front());
    groups_[gid].group.kind = KernelKind::kAttention;
    groups_[gid].group.shape = node(chain.output).shape;
    for (size_t i = 1; i < chain.nodes.size(); ++i) Place(chain.nodes[i], gid);
  }
  for (NodeId n = 0; n < graph_.size(); ++n) {
    if (ClassifyNode(graph_, n) == OpClass::kSource || IsView(n) || group_of_[n] >= 0) continue;
    if (!fuse_) {
      NewGroup(n);
      continue;
    }
    // Producers' groups first (fusing them saves a write and a read), then
    // groups that already read one of the same tensors (saves a read).
    std::vector<int> candidates;
    auto add = [&](int gid) {
      if (gid >= 0 && std::find(candidates.begin(), candidates.end(), gid) == candidates.end()) {
        candidates.push_back(gid);
      }
    };
    for (NodeId p : node(n).operands) {
      if (!IsView(p)) add(group_of_[p]);
    }
    const size_t producer_candidates = candidates.size();
    constexpr size_t kSiblingsTried = 4;
    for (NodeId p : node(n).operands) {
      const std::vector<int>& readers = readers_[Root(p)];
      const size_t first = readers.size() > kSiblingsTried ? readers.size() - kSiblingsTried : 0;
      for (size_t i = readers.size(); i-- > first;) add(readers[i]);
    }
    int chosen = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const bool is_producer = i < producer_candidates;
      if (chosen >= 0 && !is_producer) break;
      Decision decision = CanJoin(n, candidates[i]);
      if (decision.ok && chosen < 0) {
        chosen = candidates[i];
      } else if (!decision.ok && is_producer) {
        rejections_[n].push_back({candidates[i], std::move(decision.reason)});
      }
    }
    if (chosen >= 0) {
      Place(n, chosen);
    } else {
      NewGroup(n);
    }
  }

  if (fuse_) AbsorbBroadcastProducers();
  Grouping result;
  result.group_of.assign(graph_.size(), -1);
  const std::vector<int> order = LaunchOrder();
  std::vector<int> renumber(groups_.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    renumber[order[i]] = static_cast<int>(i);
    result.groups.push_back(groups_[order[i]].group);
  }
  for (NodeId n = 0; n < graph_.size(); ++n) {
    if (group_of_[n] >= 0) result.group_of[n] = renumber[group_of_[n]];
  }
  if (fuse_) {
    for (NodeId consumer = 0; consumer < graph_.size(); ++consumer) {
      if (ClassifyNode(graph_, consumer) == OpClass::kSource) continue;
      const std::vector<NodeId>& operands = node(consumer).operands;
      for (size_t i = 0; i < operands.size(); ++i) {
        const NodeId producer = operands[i];
        if (std::find(operands.begin(), operands.begin() + i, producer) != operands.begin() + i) continue;
        const OpClass producer_class = ClassifyNode(graph_, producer);
        if (producer_class == OpClass::kSource) continue;
        if (IsView(producer) && SourceGroup(producer) < 0) continue;
        if (group_of_[producer] >= 0 && group_of_[producer] == group_of_[consumer]) continue;
        result.boundaries.push_back({producer, consumer, Explain(producer, consumer)});
      }
    }
  }
  return result;
}

}  // namespace

Grouping GroupNodes(const Graph& graph, bool fuse, const std::vector<bool>& folded,
                    const std::vector<AttentionChain>& attention) {
  return Grouper(graph, fuse, folded, attention).Run();
}

}  // namespace kiln
