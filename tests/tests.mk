# Tests: unit (cmocka), CLI golden files, the sanitizer build, fuzzing.
.PHONY: check-cli
CHECK_EXTRA += check-cli

check-cli: $(BUILD)/vsc
	@tests/cli/run.sh $(BUILD)/vsc
