// The command line (D1): serve, validate, schema, --version, --help.
#pragma once

namespace cairn::app {

// Runs the command line; returns the process exit code.
int RunCli(int argc, char** argv);

}  // namespace cairn::app
