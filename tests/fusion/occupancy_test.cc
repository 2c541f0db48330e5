// BlocksPerSm on an H200's figures: each resource in turn as the limit, and
// the launch-bound asks the row emitter makes for shared-memory segments.
#include "fusion/occupancy.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln {
namespace {

Occupancy On200(int threads, int registers, int64_t shared_bytes) {
  return BlocksPerSm({.threads = threads, .registers_per_thread = registers, .shared_bytes = shared_bytes},
                     DeviceLimits{});
}

void ExpectOccupancy(const Occupancy& o, int blocks, const std::string& limits) {
  EXPECT_EQ(o.blocks, blocks);
  EXPECT_EQ(OccupancyLimitNames(o), limits);
}

TEST(OccupancyTest, ThreadsLimitSmallRegisterCounts) {
  ExpectOccupancy(On200(512, 0, 0), 4, "threads");
  ExpectOccupancy(On200(256, 24, 0), 8, "threads");
  // 32 registers fill the file at 2048 threads exactly: both limits bind.
  ExpectOccupancy(On200(512, 32, 0), 4, "threads, registers");
}

TEST(OccupancyTest, RegistersCountInWholeUnitsPerScheduler) {
  // 40 registers are 1280 a warp: 12 warps in each scheduler's 16384, 48 in all.
  ExpectOccupancy(On200(512, 40, 0), 3, "registers");
  ExpectOccupancy(On200(512, 48, 0), 2, "registers");
  // 33 registers round up to 40's unit of 256 registers a warp.
  ExpectOccupancy(On200(512, 33, 0), 3, "registers");
  ExpectOccupancy(On200(384, 168, 0), 1, "registers");
}

TEST(OccupancyTest, ABlockBeyondTheRegisterFileCannotLaunch) {
  ExpectOccupancy(On200(1024, 64, 0), 1, "registers");  // threads would allow 2
  ExpectOccupancy(On200(1024, 72, 0), 0, "registers");
}

TEST(OccupancyTest, SharedMemoryCountsTheReserveAndWholeUnits) {
  // (227 KiB + 1 KiB) / (100 KiB + 1 KiB) = 2.
  ExpectOccupancy(On200(256, 32, 100 * 1024), 2, "shared memory");
  // 56 KiB + 1 KiB fits four times in 228 KiB; one byte more rounds up to a
  // whole unit of 128 and leaves room for three.
  ExpectOccupancy(On200(128, 32, 56 * 1024), 4, "shared memory");
  ExpectOccupancy(On200(128, 32, 56 * 1024 + 1), 3, "shared memory");
  ExpectOccupancy(On200(128, 32, 227 * 1024 + 1), 0, "shared memory");
}

TEST(OccupancyTest, SmallBlocksMeetTheCapOnBlocks) {
  ExpectOccupancy(On200(32, 16, 0), 32, "blocks");
  ExpectOccupancy(On200(1, 0, 0), 32, "blocks");
}

TEST(OccupancyTest, FollowsTheDevicesFigures) {
  DeviceLimits small;
  small.max_threads_per_sm = 1536;
  small.registers_per_sm = 32768;
  EXPECT_EQ(BlocksPerSm({.threads = 512}, small).blocks, 3);
  ExpectOccupancy(BlocksPerSm({.threads = 256, .registers_per_thread = 32}, small), 4, "registers");
}

}  // namespace
}  // namespace kiln
