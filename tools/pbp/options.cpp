// SPDX-License-Identifier: Apache-2.0
#include "options.hpp"

#include <charconv>
#include <cmath>
#include <iostream>

#include "interruption.hpp"

namespace pbp::cli {
namespace {

const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const OptionSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> ParsedOptions::text(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) return std::nullopt;
  return found->second;
}

std::string ParsedOptions::required_text(const std::string& name) const {
  const auto value = text(name);
  if (!value) throw UsageError("missing required option --" + name);
  return *value;
}

uint64_t ParsedOptions::unsigned_integer(const std::string& name, uint64_t fallback) const {
  const auto value = text(name);
  if (!value) return fallback;
  uint64_t result = 0;
  const char* end = value->data() + value->size();
  const auto [stop, error] = std::from_chars(value->data(), end, result);
  if (value->empty() || error != std::errc() || stop != end) {
    throw UsageError("--" + name + " expects a non-negative integer, got '" + *value + "'");
  }
  return result;
}

uint64_t ParsedOptions::integer_between(const std::string& name, uint64_t fallback,
                                        uint64_t minimum, uint64_t maximum) const {
  const auto value = text(name);
  if (!value) return fallback;
  uint64_t result = 0;
  const char* end = value->data() + value->size();
  const auto [stop, error] = std::from_chars(value->data(), end, result);
  if (value->empty() || error != std::errc() || stop != end || result < minimum ||
      result > maximum) {
    const std::string range =
        maximum == minimum + 1
            ? std::to_string(minimum) + " or " + std::to_string(maximum)
            : "between " + std::to_string(minimum) + " and " + std::to_string(maximum);
    throw UsageError("--" + name + " must be " + range + ", got '" + *value + "'");
  }
  return result;
}

double ParsedOptions::real(const std::string& name, double fallback) const {
  const auto value = text(name);
  if (!value) return fallback;
  double result = 0.0;
  const char* end = value->data() + value->size();
  const auto [stop, error] = std::from_chars(value->data(), end, result);
  if (value->empty() || error != std::errc() || stop != end || !std::isfinite(result)) {
    throw UsageError("--" + name + " expects a number, got '" + *value + "'");
  }
  return result;
}

std::vector<uint32_t> ParsedOptions::width_list(const std::string& name,
                                                std::vector<uint32_t> fallback) const {
  const auto value = text(name);
  if (!value) return fallback;
  std::vector<uint32_t> widths;
  size_t start = 0;
  while (true) {
    const size_t comma = std::min(value->find(',', start), value->size());
    uint32_t width = 0;
    const char* first = value->data() + start;
    const char* last = value->data() + comma;
    const auto [stop, error] = std::from_chars(first, last, width);
    if (first == last || error != std::errc() || stop != last || width == 0) {
      throw UsageError("--" + name + " expects positive widths separated by commas, got '" +
                       *value + "'");
    }
    widths.push_back(width);
    if (comma == value->size()) break;
    start = comma + 1;
  }
  return widths;
}

ParsedOptions parse_options(const Arguments& args, const std::vector<OptionSpec>& specs) {
  ParsedOptions parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& argument = args[i];
    if (argument.rfind("--", 0) != 0 || argument.size() == 2) {
      throw UsageError("unexpected argument '" + argument + "'");
    }
    std::string name = argument.substr(2);
    std::optional<std::string> inline_value;
    if (const size_t equals = name.find('='); equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name.resize(equals);
    }
    const OptionSpec* spec = find_spec(specs, name);
    if (spec == nullptr) throw UsageError("unknown option '--" + name + "'");
    if (parsed.has(name)) throw UsageError("option --" + name + " given twice");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
      parsed.values_[name] = "";
    } else if (inline_value) {
      parsed.values_[name] = *inline_value;
    } else {
      if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
      parsed.values_[name] = args[++i];
    }
  }
  return parsed;
}

int run_command(const CommandDefinition& command, const Arguments& args,
                const std::function<int(const ParsedOptions&)>& body) {
  for (const std::string& argument : args) {
    if (argument == "--help" || argument == "-h") {
      std::cout << command.usage;
      return 0;
    }
  }
  try {
    return body(parse_options(args, command.options));
  } catch (const Interrupted&) {
    std::cerr << "pbp " << command.name << ": interrupted; nothing was written\n";
    return 130;  // 128 + SIGINT, as a shell reports a process Ctrl-C ended
  } catch (const UsageError& error) {
    std::cerr << "pbp " << command.name << ": " << error.what() << " (see 'pbp " << command.name
              << " --help')\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "pbp " << command.name << ": error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace pbp::cli
