# Build and install MenuBus.  `make && sudo make install`, or for a user:
# `make install PREFIX=$HOME/.local`.  Honours PREFIX and DESTDIR.

PREFIX ?= /usr/local
DESTDIR ?=
CONFIG ?= release
BUILDDIR ?= .build/$(CONFIG)

BINDIR = $(PREFIX)/bin
DBUS_SERVICES_DIR = $(PREFIX)/share/dbus-1/services
DBUS_INTERFACES_DIR = $(PREFIX)/share/dbus-1/interfaces
SYSTEMD_USER_DIR = $(PREFIX)/lib/systemd/user
MAN_DIR = $(PREFIX)/share/man
BASH_COMPLETION_DIR = $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR = $(PREFIX)/share/zsh/site-functions
# Declared providers (key files menubusd reads) and the programs that serve them.
PROVIDERS_DIR = $(PREFIX)/share/menubus/providers
PROVIDER_FILES = $(notdir $(wildcard data/providers/*.provider))
PROVIDER_SERVICES = $(notdir $(wildcard data/services/*.service))

.PHONY: all build install uninstall test clean

all: build

build:
	swift build -c $(CONFIG)

# Installs what `make build` produced; it does not build, so that
# `sudo make install` never runs the compiler as root.
install:
	@test -x $(BUILDDIR)/menubusd -a -x $(BUILDDIR)/menubus-cli -a -x $(BUILDDIR)/menubus-provider || \
		{ echo "make install: no binaries in $(BUILDDIR); run 'make' first" >&2; exit 1; }
	install -D -m 0755 $(BUILDDIR)/menubusd $(DESTDIR)$(BINDIR)/menubusd
	install -D -m 0755 $(BUILDDIR)/menubus-cli $(DESTDIR)$(BINDIR)/menubus-cli
	install -d -m 0755 $(DESTDIR)$(DBUS_SERVICES_DIR) $(DESTDIR)$(SYSTEMD_USER_DIR) $(DESTDIR)$(DBUS_INTERFACES_DIR)
	sed 's|^Exec=.*|Exec=$(BINDIR)/menubusd|' dbus/org.menubus.MenuBus1.service \
		> $(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service
	sed 's|^ExecStart=.*|ExecStart=$(BINDIR)/menubusd|' systemd/menubusd.service \
		> $(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service
	chmod 0644 $(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service $(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service
	install -m 0644 dbus/org.menubus.MenuBus1.xml dbus/org.menubus.MenuBus1.Menu.xml \
		dbus/org.menubus.MenuBus1.Client.xml dbus/org.menubus.MenuBus1.Provider.xml $(DESTDIR)$(DBUS_INTERFACES_DIR)/
	install -D -m 0644 docs/man/menubusd.8 $(DESTDIR)$(MAN_DIR)/man8/menubusd.8
	install -D -m 0644 docs/man/menubus-cli.1 $(DESTDIR)$(MAN_DIR)/man1/menubus-cli.1
	install -d -m 0755 $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR)
	$(BUILDDIR)/menubus-cli completions bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli
	$(BUILDDIR)/menubus-cli completions zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
	install -D -m 0755 $(BUILDDIR)/menubus-provider $(DESTDIR)$(BINDIR)/menubus-provider
	install -d -m 0755 $(DESTDIR)$(PROVIDERS_DIR)
	install -m 0644 $(addprefix data/providers/,$(PROVIDER_FILES)) $(DESTDIR)$(PROVIDERS_DIR)/
	for service in $(PROVIDER_SERVICES); do \
		sed 's|^Exec=[^ ]*|Exec=$(BINDIR)/menubus-provider|' data/services/$$service \
			> $(DESTDIR)$(DBUS_SERVICES_DIR)/$$service && chmod 0644 $(DESTDIR)$(DBUS_SERVICES_DIR)/$$service; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/menubusd $(DESTDIR)$(BINDIR)/menubus-cli \
		$(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service \
		$(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service \
		$(DESTDIR)$(DBUS_INTERFACES_DIR)/org.menubus.MenuBus1.xml \
		$(DESTDIR)$(DBUS_INTERFACES_DIR)/org.menubus.MenuBus1.Menu.xml \
		$(DESTDIR)$(DBUS_INTERFACES_DIR)/org.menubus.MenuBus1.Client.xml \
		$(DESTDIR)$(DBUS_INTERFACES_DIR)/org.menubus.MenuBus1.Provider.xml \
		$(DESTDIR)$(MAN_DIR)/man8/menubusd.8 $(DESTDIR)$(MAN_DIR)/man1/menubus-cli.1 \
		$(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
	rm -f $(DESTDIR)$(BINDIR)/menubus-provider $(addprefix $(DESTDIR)$(PROVIDERS_DIR)/,$(PROVIDER_FILES)) \
		$(addprefix $(DESTDIR)$(DBUS_SERVICES_DIR)/,$(PROVIDER_SERVICES))
	-rmdir $(DESTDIR)$(PROVIDERS_DIR) $(DESTDIR)$(PREFIX)/share/menubus 2>/dev/null

test:
	scripts/test

clean:
	rm -rf .build
