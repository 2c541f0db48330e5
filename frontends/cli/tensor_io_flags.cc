#include "frontends/cli/tensor_io_flags.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontends/cli/cli_flags.h"
#include "frontends/npy.h"

namespace kiln {
namespace {

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> ParseInputsFlag(const FlagValues& flags,
                                                                              const Graph& graph) {
  absl::flat_hash_map<std::string, std::string> files;
  if (!flags.Has(kInputs)) return files;
  const std::string flag = flags.Text(kInputs);
  for (absl::string_view entry : absl::StrSplit(flag, ',')) {
    const size_t equals = entry.find('=');
    if (equals == absl::string_view::npos || equals == 0 || equals + 1 == entry.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--inputs entry \"", absl::CEscape(entry), "\" is not name=path.npy"));
    }
    const std::string name(entry.substr(0, equals));
    const absl::StatusOr<NodeId> id = graph.FindNode(name);
    if (!id.ok() || graph.node(*id).op != OpKind::kInput) {
      std::vector<std::string> names;
      for (NodeId input : graph.inputs()) names.push_back(absl::StrCat("\"", graph.node(input).name, "\""));
      return absl::InvalidArgumentError(absl::StrCat("--inputs names \"", absl::CEscape(name),
                                                     "\", which is not an input of the graph (its inputs: ",
                                                     names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    if (!files.emplace(name, std::string(entry.substr(equals + 1))).second) {
      return absl::InvalidArgumentError(absl::StrCat("--inputs names \"", name, "\" twice"));
    }
  }
  return files;
}

std::string FileStem(absl::string_view name) {
  std::string stem;
  for (char c : name) {
    const bool kept = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    stem += kept ? c : '_';
  }
  if (stem.front() == '.') stem.insert(stem.begin(), '_');
  return stem;
}

}  // namespace

absl::StatusOr<GraphInputs> InputsFromFlags(const FlagValues& flags, const Graph& graph) {
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> files = ParseInputsFlag(flags, graph);
  if (!files.ok()) return files.status();
  const uint64_t seed = static_cast<uint64_t>(flags.Int(kSeed));
  GraphInputs inputs;
  for (NodeId id : graph.inputs()) {
    const Node& node = graph.node(id);
    auto file = files->find(node.name);
    if (file == files->end()) {
      const uint64_t input_seed = seed + inputs.tensors.size();
      inputs.tensors.push_back(RandomTensor(node.dtype, node.shape, input_seed));
      inputs.origins.push_back(absl::StrCat("random with seed ", input_seed));
      continue;
    }
    absl::StatusOr<NpyArray> array = ReadNpyFile(file->second);
    if (!array.ok()) return array.status();
    absl::StatusOr<HostTensor> tensor = NpyToInput(*array, node, file->second);
    if (!tensor.ok()) return tensor.status();
    inputs.tensors.push_back(*std::move(tensor));
    inputs.origins.push_back(absl::StrCat("from ", file->second));
  }
  return inputs;
}

absl::StatusOr<std::vector<std::string>> SaveOutputsFromFlags(const FlagValues& flags, const Graph& graph,
                                                              const std::vector<HostTensor>& outputs) {
  std::vector<std::string> paths;
  if (!flags.Has(kSaveOutputs)) return paths;
  const std::string dir = flags.Text(kSaveOutputs);
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::InvalidArgumentError(absl::StrCat("cannot create ", dir, ": ", error.message()));
  absl::flat_hash_set<std::string> taken;
  for (size_t j = 0; j < outputs.size(); ++j) {
    std::string file = FileStem(graph.node(graph.outputs()[j]).name);
    if (!taken.insert(file).second) {
      file = absl::StrCat(file, "_", j);
      taken.insert(file);
    }
    paths.push_back((std::filesystem::path(dir) / absl::StrCat(file, ".npy")).string());
    if (absl::Status s = WriteNpyFile(paths.back(), outputs[j]); !s.ok()) return s;
  }
  return paths;
}

}  // namespace kiln
