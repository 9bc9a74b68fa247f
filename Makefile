# The two set-up commands of the README: `make run` and `make test`. Everything else is here too.
.PHONY: deps build run test test-release test-asan test-tsan tidy bench bench-postgres fuzz format clean

EXAMPLE ?= examples/app.yaml

deps:
	scripts/install-deps

build: deps
	cmake --preset release
	cmake --build --preset release

# Builds only the server (not the test suites) and serves the example app on the embedded
# database (SQLite in ./cairn_data).
run: deps
	cmake --preset release
	cmake --build --preset release --target cairn
	build/release/cairn serve $(EXAMPLE)

# Every test: clang-tidy over src/, the optimized build and the ASan+UBSan build, each on SQLite
# and PostgreSQL.
test: deps
	scripts/run-tidy
	scripts/run-tests release
	scripts/run-tests asan

# clang-tidy with the checks of .clang-tidy over src/ (every finding an error).
tidy: deps
	scripts/run-tidy

test-release: deps
	scripts/run-tests release

test-asan: deps
	scripts/run-tests asan

# ThreadSanitizer over the database and end-to-end suites, both backends. Not part of `make test`
# (CI time, see README); run it before every stop.
test-tsan: deps
	scripts/run-tests tsan

bench: deps
	bench/run

# The same workloads with cairn on a throwaway PostgreSQL cluster (durable settings).
bench-postgres: deps
	bench/run --postgres

# Runs each libFuzzer target for FUZZ_SECONDS (clang, ASan+UBSan). New inputs collect in
# build/fuzz/corpus; copy the ones worth keeping (and every crash) into fuzz/corpus/<target>.
FUZZ_SECONDS ?= 60
fuzz: deps
	cmake --preset fuzz
	cmake --build --preset fuzz
	mkdir -p build/fuzz/corpus/config build/fuzz/corpus/request build/fuzz/corpus/list_query
	build/fuzz/fuzz/config_fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -rss_limit_mb=4096 \
	  build/fuzz/corpus/config fuzz/corpus/config tests/fixtures/configs
	build/fuzz/fuzz/request_fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  build/fuzz/corpus/request fuzz/corpus/request
	build/fuzz/fuzz/list_query_fuzzer -max_total_time=$(FUZZ_SECONDS) -max_len=2048 \
	  build/fuzz/corpus/list_query fuzz/corpus/list_query

format:
	find src tests bench fuzz -name '*.cpp' -o -name '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
