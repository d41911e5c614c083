# Docs and install extras (docs person): bash completion, the install test
# (make install into a temporary DESTDIR, then build a program against it
# with pkg-config), the README test (its examples are run and compared) and
# the completion test, all run by `make check`.
.PHONY: install-completion uninstall-completion check-install check-readme check-completion

COMPLETION_DIR = $(PREFIX)/share/bash-completion/completions

INSTALL_EXTRA   += install-completion
UNINSTALL_EXTRA += uninstall-completion
CHECK_EXTRA     += check-install check-readme check-completion

install-completion:
	install -d $(DESTDIR)$(COMPLETION_DIR)
	install -m 644 scripts/vsc-completion.bash $(DESTDIR)$(COMPLETION_DIR)/vsc

uninstall-completion:
	rm -f $(DESTDIR)$(COMPLETION_DIR)/vsc

check-install: all
	@tests/system/install.sh $(BUILD)

check-readme: all
	@python3 tests/system/readme.py $(BUILD)

check-completion: all
	@tests/system/completion.sh $(BUILD)
