# The two set-up commands of the README: `make run` and `make test`. Everything else is here too.
.PHONY: deps build run test test-release test-asan bench format clean

EXAMPLE ?= examples/app.yaml

deps:
	scripts/install-deps

build: deps
	cmake --preset release
	cmake --build --preset release

# Builds and serves the example app on the embedded database (SQLite in ./cairn_data).
run: build
	build/release/cairn serve $(EXAMPLE)

# Every test: the optimized build and the ASan+UBSan build, each on SQLite and PostgreSQL.
test: deps
	scripts/run-tests release
	scripts/run-tests asan

test-release: deps
	scripts/run-tests release

test-asan: deps
	scripts/run-tests asan

bench: deps
	bench/run

format:
	find src tests bench fuzz -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
