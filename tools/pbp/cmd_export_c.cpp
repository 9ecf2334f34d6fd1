// SPDX-License-Identifier: Apache-2.0
// `pbp export-c model.pbp --name NAME [--out-dir DIR]`: the blob as a C99 const byte array
// (NAME.h / NAME.c), aligned for pbp_open, ready to compile into firmware.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/c_export.hpp"

namespace pbp::cli {
namespace {

const char* const kUsage =
    "usage: pbp export-c MODEL.pbp --name NAME [--out-dir DIR]\n"
    "\n"
    "Validates the blob, then writes DIR/NAME.h and DIR/NAME.c, both or neither: the blob as\n"
    "`const uint8_t NAME[]`, 8-byte aligned, with NAME_SIZE, NAME_INPUT_COUNT, NAME_MAX_WIDTH,\n"
    "NAME_WORKSPACE_BYTES and NAME_CRC32. A .c compiled with another export's .h fails to\n"
    "compile. Open it with pbp_open(&model, NAME, NAME_SIZE).\n"
    "\n"
    "NAME.h also says which input is which, in a comment table and as macros: NAME_INPUT_<COL>\n"
    "(the input's index), _NAME, _MIN and _MAX (its training range), and NAME_TARGET_NAME.\n"
    "<COL> is the column's name upper-cased, each run of other characters one '_', a repeat\n"
    "suffixed _2, _3...; the input's index when the model has no column names.\n"
    "\n"
    "  --name NAME     a C identifier: the array name and the file names\n"
    "  --out-dir DIR   where to write, created if missing (default: the current directory)\n";

int run(const std::string& path, const ParsedOptions& options) {
  const std::string name = options.required_text("name");
  if (!trainer::is_c_identifier(name)) {
    throw UsageError("--name must be a C identifier, got '" + name + "'");
  }
  const std::string dir = options.text("out-dir").value_or(".");
  const std::vector<uint8_t> bytes = read_model_file(path);
  const std::vector<uint32_t> aligned = aligned_copy(bytes);
  pbp::Model model;
  open_blob(model, aligned.data(), bytes.size(), path);  // the CLI's message for a bad blob
  const std::string base = trainer::write_c_source(bytes, name, dir, {"`pbp export-c`", path});
  std::printf("wrote %s.h and %s.c (%u bytes)\n", base.c_str(), base.c_str(),
              model.view().blob_size);
  return 0;
}

}  // namespace

int command_export_c(const Arguments& args) {
  const CommandDefinition command{"export-c", kUsage, {{"name", true}, {"out-dir", true}}};
  // The model path is the one positional argument (the first that is no option's value).
  Arguments options;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& argument = args[i];
    const bool is_option = argument.rfind("-", 0) == 0;
    if (!is_option) {
      paths.push_back(argument);
      continue;
    }
    options.push_back(argument);
    const bool takes_value = argument == "--name" || argument == "--out-dir";
    if (takes_value && i + 1 < args.size()) options.push_back(args[++i]);
  }
  return run_command(command, options, [&](const ParsedOptions& parsed) {
    if (paths.size() != 1) throw UsageError("expected exactly one model file");
    return run(paths[0], parsed);
  });
}

}  // namespace pbp::cli
