# The toolkit shims: C on GDBus, loaded into other people's programs, so
# no Swift runtime goes with them.  Included by the top Makefile:
# `make shims` builds them into .build/shims, `make install-shims`
# installs them (part of `make install`).
#
# The GTK 3 module: $(SHIMS_BUILD)/gtk3/modules/libmenubus.so, so that
# GTK_PATH=$(SHIMS_BUILD)/gtk3 GTK_MODULES=menubus loads it uninstalled.

SHIMS_BUILD ?= .build/shims
CC ?= cc
SHIM_CFLAGS ?= -O2 -g
SHIM_WARNINGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
SHIM_COMMON = shims/common/menubus-shim.c shims/common/menubus-shim.h
SHIM_CLIENT_HEADER = $(SHIMS_BUILD)/include/client-interface.h

GTK3_MODULE = $(SHIMS_BUILD)/gtk3/modules/libmenubus.so
GTK3_MODULE_DIR ?= $(call pkgvar,gtk+-3.0,libdir,$(PREFIX)/lib)/gtk-3.0/modules

.PHONY: shims install-shims uninstall-shims

shims: $(GTK3_MODULE)

# The Client interface the shims serve, from the contract itself.
$(SHIM_CLIENT_HEADER): dbus/org.menubus.MenuBus1.Client.xml
	@mkdir -p $(dir $@)
	{ echo '/* Made by the build from dbus/org.menubus.MenuBus1.Client.xml. */'; \
	  echo '#define MB_CLIENT_XML \'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n" \\/' $<; \
	  echo '    ""'; } > $@.tmp && mv $@.tmp $@

$(GTK3_MODULE): shims/gtk3/menubus-module.c $(SHIM_COMMON) $(SHIM_CLIENT_HEADER)
	@pkg-config --exists gtk+-3.0 || { echo "make: GTK 3's headers are missing: apt-get install libgtk-3-dev" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) -fPIC -shared -fvisibility=hidden \
		-Ishims/common -I$(SHIMS_BUILD)/include $(shell pkg-config --cflags gtk+-3.0 gio-unix-2.0 gmodule-2.0) \
		-o $@ shims/gtk3/menubus-module.c shims/common/menubus-shim.c \
		$(LDFLAGS) -Wl,--as-needed -Wl,-z,defs $(shell pkg-config --libs gtk+-3.0 gio-unix-2.0 gmodule-2.0)

# Under sudo the shims are built as the user who ran it, as the binaries
# are, so no root-owned files are left in the user's tree.
ifneq ($(BUILD_USER),)
install-shims: shims-as-build-user
shims-as-build-user:
	runuser -u $(BUILD_USER) -- env PATH="$$PATH" $(MAKE) --no-print-directory shims
.PHONY: shims-as-build-user
else
install-shims: $(GTK3_MODULE)
endif
install-shims:
	install -D -m 0644 $(GTK3_MODULE) $(DESTDIR)$(GTK3_MODULE_DIR)/libmenubus.so

uninstall-shims:
	rm -f $(DESTDIR)$(GTK3_MODULE_DIR)/libmenubus.so
