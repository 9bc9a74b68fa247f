#include "app/cli.hpp"

int main(int argc, char** argv) {
  return cairn::app::RunCli(argc, argv);
}
