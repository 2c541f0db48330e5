// Rendering Graphviz DOT source with the `dot` program, for `kiln plan --svg`
// and dump folders.
//
//   absl::Status s = RenderSvg(PlanDot(graph, plan), "plan.svg");
//   // FailedPrecondition "cannot render plan.svg: Graphviz's dot is not on PATH"
#ifndef KILN_FRONTENDS_CLI_GRAPHVIZ_H_
#define KILN_FRONTENDS_CLI_GRAPHVIZ_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace kiln {

// Writes the SVG atomically: `svg_path` holds the whole drawing or is untouched.
absl::Status RenderSvg(absl::string_view dot_source, const std::string& svg_path);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_GRAPHVIZ_H_
