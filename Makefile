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
LOCALE_DIR = $(PREFIX)/share/locale
LOCALE_BUILD_DIR = .build/share/locale

.PHONY: all build install uninstall test clean

all: build

build:
	swift build -c $(CONFIG)
	scripts/build-locale $(LOCALE_BUILD_DIR)

# Installs what `make build` produced; it does not build, so that
# `sudo make install` never runs the compiler as root.
install:
	@test -x $(BUILDDIR)/menubusd -a -x $(BUILDDIR)/menubus-cli || \
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
	install -d -m 0755 $(DESTDIR)$(MAN_DIR)/man8
	sed 's|@DBUS_INTERFACES_DIR@|$(DBUS_INTERFACES_DIR)|g' docs/man/menubusd.8 > $(DESTDIR)$(MAN_DIR)/man8/menubusd.8
	chmod 0644 $(DESTDIR)$(MAN_DIR)/man8/menubusd.8
	install -D -m 0644 docs/man/menubus-cli.1 $(DESTDIR)$(MAN_DIR)/man1/menubus-cli.1
	install -d -m 0755 $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR)
	$(BUILDDIR)/menubus-cli completions bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli
	$(BUILDDIR)/menubus-cli completions zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
	# Localisation: the catalogues `make build` compiled from po/*.po.
	for mo in $(LOCALE_BUILD_DIR)/*/LC_MESSAGES/menubus.mo; do \
		test -f $$mo || { echo "make install: no catalogues in $(LOCALE_BUILD_DIR); run 'make' first" >&2; exit 1; }; \
		lang=$${mo#$(LOCALE_BUILD_DIR)/}; lang=$${lang%%/*}; \
		install -D -m 0644 $$mo $(DESTDIR)$(LOCALE_DIR)/$$lang/LC_MESSAGES/menubus.mo; \
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
	rm -f $(DESTDIR)$(LOCALE_DIR)/*/LC_MESSAGES/menubus.mo

test:
	scripts/test

clean:
	rm -rf .build
