// Flag declarations and their values, independent of any command: every
// kind's checks and messages, defaults, and the spelling a child process gets.
#include "frontends/cli/flags.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace kiln {
namespace {

constexpr Flag kMode{.name = "mode", .kind = FlagKind::kChoice, .value = "on|off|auto", .help = "h",
                     .default_value = "auto"};
constexpr Flag kCount{.name = "count", .kind = FlagKind::kInt, .value = "N", .help = "h", .min = 1, .max = 8};
constexpr Flag kFloor{.name = "floor", .kind = FlagKind::kInt, .value = "N", .help = "h", .min = 0};
constexpr Flag kRate{.name = "rate", .kind = FlagKind::kNumber, .value = "R", .help = "h", .positive = true};
constexpr Flag kPath{.name = "path", .kind = FlagKind::kText, .value = "DIR", .help = "h"};
constexpr Flag kQuiet{.name = "quiet", .help = "h"};

std::string Message(const Flag& flag, absl::string_view value) {
  return std::string(CheckFlagValue(flag, absl::StrCat("--", flag.name), value).message());
}

TEST(FlagsTest, EachKindChecksItsValue) {
  EXPECT_TRUE(CheckFlagValue(kMode, "--mode", "off").ok());
  EXPECT_EQ(Message(kMode, "maybe"), "--mode=maybe is not one of on, off, auto");
  EXPECT_TRUE(CheckFlagValue(kCount, "--count", "8").ok());
  EXPECT_EQ(Message(kCount, "9"), "--count=9 is outside 1..8");
  EXPECT_EQ(Message(kCount, "2.5"), "--count=2.5 is not a whole number");
  EXPECT_EQ(Message(kFloor, "-1"), "--floor=-1 is below 0");
  EXPECT_TRUE(CheckFlagValue(kRate, "--rate", "0.5").ok());
  EXPECT_EQ(Message(kRate, "-2"), "--rate=-2 is not above 0");
  EXPECT_EQ(Message(kRate, "nan"), "--rate=nan is not a number");
  EXPECT_EQ(Message(kPath, ""), "--path needs a value: --path=DIR");
  EXPECT_EQ(CheckFlagValue(kPath, "KILN_DIR", "").message(), "KILN_DIR needs a value: KILN_DIR=DIR");
  EXPECT_TRUE(CheckFlagValue(kQuiet, "--quiet", "").ok());
}

TEST(FlagsTest, ValuesDefaultsAndTheirSpellingForAChild) {
  const FlagValues flags({&kMode, &kCount, &kRate, &kPath, &kQuiet},
                         {{"count", "3"}, {"rate", "2.5"}, {"quiet", ""}});
  EXPECT_EQ(flags.Text(kMode), "auto");  // the default
  EXPECT_FALSE(flags.Has(kMode));
  EXPECT_EQ(flags.Int(kCount), 3);
  EXPECT_EQ(flags.Number(kRate), 2.5);
  EXPECT_EQ(flags.Text(kPath), "");
  EXPECT_TRUE(flags.Switch(kQuiet));
  EXPECT_EQ(flags.Given({&kQuiet, &kCount, &kPath, &kRate}),
            (std::vector<std::string>{"--quiet", "--count=3", "--rate=2.5"}));
}

}  // namespace
}  // namespace kiln
