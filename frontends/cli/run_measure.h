// `kiln run --measure FILE`: runs the plan once more under Nsight Compute and
// prints each kernel's measured DRAM bytes next to the traffic model's.
// kiln starts itself under ncu as `kiln run FILE --iters=1 --no-check` with
// the same plan flags, has ncu profile only the plan's kernels, reads ncu's
// CSV back and compares (ncu_report.h). Without ncu it says so in one line.
//
//   ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum
//       --kernel-name regex:^(f0_row_reduction)$ --launch-count 2 --export REPORT
//       --force-overwrite kiln run FILE --iters=1 --no-check
//   ncu --import REPORT.ncu-rep --csv --page raw --print-units base
//
// ncu is $KILN_NCU when set, else `ncu` on PATH. With --dump the report
// stays in the dump folder (ncu.ncu-rep), beside measure.txt and measure.json.
#ifndef KILN_FRONTENDS_CLI_RUN_MEASURE_H_
#define KILN_FRONTENDS_CLI_RUN_MEASURE_H_

#include "frontends/cli/commands.h"

namespace kiln {

int RunMeasuredCommand(const CommandLine& line);

}  // namespace kiln

#endif  // KILN_FRONTENDS_CLI_RUN_MEASURE_H_
