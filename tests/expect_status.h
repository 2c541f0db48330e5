// The one assertion every bad-input test makes: the status is an
// InvalidArgumentError with exactly the user-facing message.
//
//   ExpectInvalid(graph.AddNode(bad).status(), "node \"t4\" (add): ...");
#ifndef KILN_TESTS_EXPECT_STATUS_H_
#define KILN_TESTS_EXPECT_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace kiln {

inline void ExpectInvalid(const absl::Status& status, absl::string_view message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(), message);
}

}  // namespace kiln

#endif  // KILN_TESTS_EXPECT_STATUS_H_
