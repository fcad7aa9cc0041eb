# Build and install MenuBus.  `make && sudo make install`, or for one user:
# `make install PREFIX=$HOME/.local`.  Honours PREFIX and DESTDIR.
#
# System paths come from pkg-config (systemd's systemduserunitdir, dbus-1's
# session_bus_services_dir, bash-completion's completionsdir), moved under
# PREFIX.  A PREFIX inside $HOME installs the unit, the activation file and
# the bash completion where systemd, dbus-daemon and bash-completion look for
# one user's files: $XDG_DATA_HOME (default ~/.local/share)/systemd/user,
# /dbus-1/services and /bash-completion/completions.
#
# `make install` builds first when the binaries are missing or older than the
# sources; under `sudo` it builds as the user who ran sudo, never as root.
# `make deb` builds the Debian package (dpkg-buildpackage -us -uc -b) into ..

PREFIX ?= /usr/local
DESTDIR ?=
CONFIG ?= release
BUILDDIR ?= .build/$(CONFIG)
SWIFT ?= swift
SWIFT_BUILD_FLAGS ?=

BINDIR = $(PREFIX)/bin
# Programs nobody runs by hand: the bundled providers, which D-Bus activation starts.
LIBEXECDIR = $(PREFIX)/libexec/menubus
DATADIR = $(PREFIX)/share
MAN_DIR = $(DATADIR)/man
LOCALE_BUILD_DIR = .build/share/locale
# Declared providers (key files menubusd reads) and the programs that serve them.
PROVIDERS_DIR = $(DATADIR)/menubus/providers
PROVIDER_FILES = $(notdir $(wildcard data/providers/*.provider))
PROVIDER_SERVICES = $(notdir $(wildcard data/services/*.service))

# pkg-config's variable $(2) of package $(1), with prefix and datadir set to
# this PREFIX's; $(3) when pkg-config or the package's .pc file is missing.
pkgvar = $(or $(shell pkg-config --define-variable=prefix=$(PREFIX) --define-variable=datadir=$(DATADIR) \
	--variable=$(2) $(1) 2>/dev/null),$(3))

# Is PREFIX inside the home directory?  Then this is one user's install.
USER_INSTALL := $(if $(HOME),$(filter $(HOME) $(HOME)/%,$(PREFIX)))
USER_DATA_DIR := $(or $(XDG_DATA_HOME),$(HOME)/.local/share)

ifneq ($(USER_INSTALL),)
SYSTEMD_USER_DIR ?= $(USER_DATA_DIR)/systemd/user
DBUS_SERVICES_DIR ?= $(USER_DATA_DIR)/dbus-1/services
BASH_COMPLETION_DIR ?= $(USER_DATA_DIR)/bash-completion/completions
else
SYSTEMD_USER_DIR ?= $(call pkgvar,systemd,systemduserunitdir,$(PREFIX)/lib/systemd/user)
DBUS_SERVICES_DIR ?= $(call pkgvar,dbus-1,session_bus_services_dir,$(DATADIR)/dbus-1/services)
BASH_COMPLETION_DIR ?= $(call pkgvar,bash-completion,completionsdir,$(DATADIR)/bash-completion/completions)
endif
DBUS_INTERFACES_DIR ?= $(call pkgvar,dbus-1,interfaces_dir,$(DATADIR)/dbus-1/interfaces)
# Debian's zsh searches vendor-completions for packages in /usr, and
# site-functions under /usr/local.  It searches no folder in the home
# directory: a user install says which line puts its folder on fpath.
ZSH_COMPLETION_DIR ?= $(if $(filter /usr,$(PREFIX)),$(DATADIR)/zsh/vendor-completions,$(DATADIR)/zsh/site-functions)
LOCALE_DIR ?= $(DATADIR)/locale

INTERFACES = dbus/org.menubus.MenuBus1.xml dbus/org.menubus.MenuBus1.Menu.xml \
	dbus/org.menubus.MenuBus1.Client.xml dbus/org.menubus.MenuBus1.Provider.xml
BINARIES = $(BUILDDIR)/menubusd $(BUILDDIR)/menubus-cli

# Who runs the compiler: under `sudo make install`, the user who ran sudo.
BUILD_USER := $(if $(and $(SUDO_USER),$(filter 0,$(shell id -u))),$(filter-out root,$(SUDO_USER)))

.PHONY: all build install install-binaries install-service-files install-data uninstall test clean deb

all: build

build:
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)
	scripts/build-locale $(LOCALE_BUILD_DIR)

# The binaries are rebuilt when missing or older than the sources, but only
# for the default BUILDDIR (another BUILDDIR is taken as it is).
ifeq ($(BUILDDIR),.build/$(CONFIG))
SOURCES := Package.swift $(shell find Sources -name '*.swift' 2>/dev/null)
endif
$(BINARIES) &: $(SOURCES)
ifneq ($(BUILD_USER),)
	@echo "make: building as $(BUILD_USER), not as root"
	runuser -u $(BUILD_USER) -- env PATH="$$PATH" $(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)
else
	@command -v $(SWIFT) >/dev/null || { echo "make: no '$(SWIFT)' on PATH to build with; run 'make' first (as yourself), then install" >&2; exit 1; }
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)
endif

install: install-binaries install-service-files install-data install-shims

include shims/shims.mk
# The tests' own helpers (the Wayland keyboard): a tree without Tests/ still installs.
-include Tests/wayland/wayland.mk

# menubus-provider is menubus-cli under another name (it serves the bundled
# providers when started so): one copy of the Swift runtime, not two.
install-binaries: $(BINARIES)
	install -D -m 0755 $(BUILDDIR)/menubusd $(DESTDIR)$(BINDIR)/menubusd
	install -D -m 0755 $(BUILDDIR)/menubus-cli $(DESTDIR)$(BINDIR)/menubus-cli
	install -d -m 0755 $(DESTDIR)$(LIBEXECDIR)
	ln -sfn ../../bin/menubus-cli $(DESTDIR)$(LIBEXECDIR)/menubus-provider

# The unit and the activation file name the installed daemon; their
# arguments (--idle-timeout) stay as written.
install-service-files:
	install -d -m 0755 $(DESTDIR)$(DBUS_SERVICES_DIR) $(DESTDIR)$(SYSTEMD_USER_DIR)
	sed 's|/usr/local/bin/menubusd|$(BINDIR)/menubusd|' dbus/org.menubus.MenuBus1.service \
		> $(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service
	sed 's|/usr/local/bin/menubusd|$(BINDIR)/menubusd|' systemd/menubusd.service \
		> $(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service
	chmod 0644 $(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service $(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service

# Data files: interface XML, man pages, completions.  Further data files
# (translations compiled from po/ into $(LOCALE_DIR)/LANG/LC_MESSAGES/*.mo)
# belong in this target, after these lines.
install-data: $(BUILDDIR)/menubus-cli
	install -d -m 0755 $(DESTDIR)$(DBUS_INTERFACES_DIR)
	install -m 0644 $(INTERFACES) $(DESTDIR)$(DBUS_INTERFACES_DIR)/
	install -d -m 0755 $(DESTDIR)$(MAN_DIR)/man8
	sed 's|@DBUS_INTERFACES_DIR@|$(DBUS_INTERFACES_DIR)|g' docs/man/menubusd.8 > $(DESTDIR)$(MAN_DIR)/man8/menubusd.8
	chmod 0644 $(DESTDIR)$(MAN_DIR)/man8/menubusd.8
	install -D -m 0644 docs/man/menubus-cli.1 $(DESTDIR)$(MAN_DIR)/man1/menubus-cli.1
	sed 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' docs/man/menubus-provider.8 > $(DESTDIR)$(MAN_DIR)/man8/menubus-provider.8
	chmod 0644 $(DESTDIR)$(MAN_DIR)/man8/menubus-provider.8
	install -d -m 0755 $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR)
	$(BUILDDIR)/menubus-cli completions bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli
	$(BUILDDIR)/menubus-cli completions zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
	chmod 0644 $(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
ifneq ($(USER_INSTALL),)
	@echo "make: zsh completion: add this line to ~/.zshrc, before compinit:"
	@echo "    fpath=($(ZSH_COMPLETION_DIR) \$$fpath)"
endif
	# Localisation: po/*.po compiled by msgfmt straight into the tree
	# (msgfmt is no toolchain, so this is safe as root).
	scripts/build-locale $(DESTDIR)$(LOCALE_DIR)
	install -d -m 0755 $(DESTDIR)$(PROVIDERS_DIR) $(DESTDIR)$(DBUS_SERVICES_DIR)
	install -m 0644 $(addprefix data/providers/,$(PROVIDER_FILES)) $(DESTDIR)$(PROVIDERS_DIR)/
	for service in $(PROVIDER_SERVICES); do \
		sed 's|^Exec=[^ ]*|Exec=$(LIBEXECDIR)/menubus-provider|' data/services/$$service \
			> $(DESTDIR)$(DBUS_SERVICES_DIR)/$$service && chmod 0644 $(DESTDIR)$(DBUS_SERVICES_DIR)/$$service; \
	done

uninstall: uninstall-shims
	rm -f $(DESTDIR)$(BINDIR)/menubusd $(DESTDIR)$(BINDIR)/menubus-cli \
		$(DESTDIR)$(DBUS_SERVICES_DIR)/org.menubus.MenuBus1.service \
		$(DESTDIR)$(SYSTEMD_USER_DIR)/menubusd.service \
		$(addprefix $(DESTDIR)$(DBUS_INTERFACES_DIR)/,$(notdir $(INTERFACES))) \
		$(DESTDIR)$(MAN_DIR)/man8/menubusd.8 $(DESTDIR)$(MAN_DIR)/man1/menubus-cli.1 \
		$(DESTDIR)$(BASH_COMPLETION_DIR)/menubus-cli $(DESTDIR)$(ZSH_COMPLETION_DIR)/_menubus-cli
	rm -f $(DESTDIR)$(LIBEXECDIR)/menubus-provider $(DESTDIR)$(MAN_DIR)/man8/menubus-provider.8 \
		$(addprefix $(DESTDIR)$(PROVIDERS_DIR)/,$(PROVIDER_FILES)) $(addprefix $(DESTDIR)$(DBUS_SERVICES_DIR)/,$(PROVIDER_SERVICES))
	-rmdir $(DESTDIR)$(PROVIDERS_DIR) $(DESTDIR)$(DATADIR)/menubus $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	rm -f $(DESTDIR)$(LOCALE_DIR)/*/LC_MESSAGES/menubus.mo

# Prints where `make install` would put things (for scripts and tests).
print-paths:
	@echo "BINDIR=$(BINDIR)"
	@echo "LIBEXECDIR=$(LIBEXECDIR)"
	@echo "SYSTEMD_USER_DIR=$(SYSTEMD_USER_DIR)"
	@echo "DBUS_SERVICES_DIR=$(DBUS_SERVICES_DIR)"
	@echo "DBUS_INTERFACES_DIR=$(DBUS_INTERFACES_DIR)"
	@echo "BASH_COMPLETION_DIR=$(BASH_COMPLETION_DIR)"
	@echo "ZSH_COMPLETION_DIR=$(ZSH_COMPLETION_DIR)"
	@echo "MAN_DIR=$(MAN_DIR)"

# The Debian package: ../menubus_VERSION_ARCH.deb (see debian/rules).
deb:
	dpkg-buildpackage -us -uc -b

test:
	scripts/test

clean:
	rm -rf .build
