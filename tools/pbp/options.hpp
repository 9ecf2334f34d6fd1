// SPDX-License-Identifier: Apache-2.0
// Command-line option parsing shared by the subcommands: "--name value" or "--name=value".
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "host_names.hpp"
#include "pbp/host/errors.hpp"

namespace pbp::cli {

// A mistake in the command line: reported in one line with a usage hint, exit code 2.
using host::UsageError;

struct OptionSpec {
  std::string name;  // without the leading "--"
  bool takes_value = true;
};

class ParsedOptions {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> text(const std::string& name) const;
  std::string required_text(const std::string& name) const;
  // Typed accessors: the fallback when absent, UsageError naming the option when malformed.
  uint64_t unsigned_integer(const std::string& name, uint64_t fallback) const;
  // An integer in [minimum, maximum]: "--NAME must be between MIN and MAX, got 'TEXT'" when it
  // is not, malformed and negative values included.
  uint64_t integer_between(const std::string& name, uint64_t fallback, uint64_t minimum,
                           uint64_t maximum) const;
  double real(const std::string& name, double fallback) const;
  std::vector<uint32_t> width_list(const std::string& name, std::vector<uint32_t> fallback) const;

  std::map<std::string, std::string> values_;
};

// Throws UsageError for an unknown option, a missing value, a repeated option or a positional
// argument.
ParsedOptions parse_options(const Arguments& args, const std::vector<OptionSpec>& specs);

struct CommandDefinition {
  std::string name;
  std::string usage;  // full --help text
  std::vector<OptionSpec> options;
};

// Runs a subcommand's body with uniform --help handling and error reporting: prints the usage
// for --help/-h (exit 0), "pbp <name>: <message>" plus a hint for UsageError (exit 2), and
// "pbp <name>: error: <message>" for any other exception (exit 1).
int run_command(const CommandDefinition& command, const Arguments& args,
                const std::function<int(const ParsedOptions&)>& body);

}  // namespace pbp::cli
