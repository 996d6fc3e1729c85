# stepforge: the two commands a newcomer needs are `make demo` (the main job) and `make test`.
SHELL := bash
NODE_MODULES_STAMP := node_modules/.package-lock.json

.PHONY: install build generate check lint typecheck test demo bench bench-quick clean

# npm ci when the lock changed (or nothing is installed). --ignore-scripts: the `build` target
# compiles dist/ once (the prepare script would build it a second time).
$(NODE_MODULES_STAMP): package-lock.json package.json
	npm ci --no-audit --no-fund --ignore-scripts

install: $(NODE_MODULES_STAMP)

build: install
	npm run --silent build

# Regenerate generated/ from specs/ (writes only files whose content changes) and compile what
# changed into dist/, so the CLI and the package entries see it at once.
generate: build
	node bin/stepforge.js generate

# Fail when generated/ is stale.
check: build
	node bin/stepforge.js generate --check

lint: build
	node bin/stepforge.js lint

typecheck: install
	npx tsc --noEmit -p tsconfig.json

# The main job on built-in defaults: regenerate the four integrations and show them working.
demo: build
	node bin/stepforge.js generate
	node bin/stepforge.js lint
	npx tsx scripts/demo.ts

# Every test: the suites under test/ (which include the generate --check, lint and type checks).
# The build has just type-checked the sources (make stops on an error), so test/project.test.ts
# checks the rest of the program against the declarations it wrote instead of checking them again.
test: build
	STEPFORGE_BUILD_CHECKED=1 npx vitest run

# Benchmarks, side by side with the alternatives (loopback only); writes bench/RESULTS.md.
# `make bench-quick` runs fewer rounds and skips the largest specs, and leaves RESULTS.md alone.
bench: build
	npx tsx bench/run-all.ts

bench-quick: build
	npx tsx bench/run-all.ts --quick

clean:
	rm -rf dist test/.tmp .test-results.json
