# The toolkit shims: C on GDBus, loaded into other people's programs, so
# no Swift runtime goes with them.  Included by the top Makefile:
# `make shims` builds them into .build/shims, `make install-shims`
# installs them (part of `make install`).
#
# The GTK 3 module: $(SHIMS_BUILD)/gtk3/modules/libmenubus.so, so that
# GTK_PATH=$(SHIMS_BUILD)/gtk3 GTK_MODULES=menubus loads it uninstalled.
#
# The GTK 4 library (GTK 4 loads no modules: an app calls
# menubus_gtk4_attach): $(SHIMS_BUILD)/gtk4/libmenubus-gtk4.so.$(GTK4_VERSION)
# with its SONAME and development symlinks, menubus-gtk4.pc, and the
# example examples/gtk4-editor linked against it there (RUNPATH $ORIGIN).
#
# Install targets, each self-contained (the Debian packaging calls each
# with a DESTDIR of its own):
#   install-gtk3-module   libmenubus.so into GTK 3's module folder
#   install-gtk4-library  libmenubus-gtk4.so.$(GTK4_VERSION) and .so.0 into $(LIBDIR)
#   install-gtk4-dev      the header into $(INCLUDEDIR)/menubus-gtk4, the .so
#                         symlink, and menubus-gtk4.pc into $(LIBDIR)/pkgconfig
#   install-gtk4-im-module  libim-menubus.so into GTK 4's immodules folder
#   install-qt5-theme     platformthemes/libmenubus.so into Qt 5's plugin folder
#   install-qt6-theme     the same for Qt 6
#   install-shims         all of them (the Qt ones where Qt's headers are)
#
# The Qt platform theme (C++ over the shim core), one set of sources for Qt 5 and Qt 6:
# $(SHIMS_BUILD)/qt5/platformthemes/libmenubus.so (and qt6/), so that
# QT_PLUGIN_PATH=$(SHIMS_BUILD)/qt5 QT_QPA_PLATFORMTHEME=menubus loads it
# uninstalled.  It uses Qt's private QPA headers (the theme factory), hence
# qtbase5-private-dev and qt6-base-private-dev.  `make shims` builds each
# where its Qt's headers are installed (scripts/setup installs them) and
# says which is not, so a build without Qt (the Debian package's, whose
# Build-Depends have no Qt yet) still works; `make qt5-theme` and `make
# qt6-theme` insist.

SHIMS_BUILD ?= .build/shims
CC ?= cc
SHIM_CFLAGS ?= -O2 -g
SHIM_WARNINGS = -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
# The shim core: C on GDBus, no toolkit; every shim compiles it in.
SHIM_CORE_SOURCES = $(addprefix shims/core/,mb-connection.c mb-field.c mb-menu.c mb-undo.c mb-items.c mb-shortcut.c mb-bar.c)
SHIM_CORE_HEADERS = $(wildcard shims/core/*.h)
SHIM_CORE_CFLAGS = -Ishims/core -I$(SHIMS_BUILD)/include
SHIM_COMMON = $(SHIM_CORE_SOURCES) $(SHIM_CORE_HEADERS)
SHIM_CLIENT_HEADER = $(SHIMS_BUILD)/include/client-interface.h

GTK3_MODULE = $(SHIMS_BUILD)/gtk3/modules/libmenubus.so
GTK3_FACTS = $(SHIMS_BUILD)/gtk3/gtk3-facts
GTK3_MODULE_DIR ?= $(call pkgvar,gtk+-3.0,libdir,$(PREFIX)/lib)/gtk-3.0/modules

# The library's version; its SONAME changes with the first number only.
GTK4_VERSION = 0.1.0
GTK4_SONAME = libmenubus-gtk4.so.$(firstword $(subst ., ,$(GTK4_VERSION)))
GTK4_BUILD = $(SHIMS_BUILD)/gtk4
GTK4_LIB = $(GTK4_BUILD)/libmenubus-gtk4.so.$(GTK4_VERSION)
GTK4_LINKS = $(GTK4_BUILD)/$(GTK4_SONAME) $(GTK4_BUILD)/libmenubus-gtk4.so
GTK4_PC = $(GTK4_BUILD)/menubus-gtk4.pc
GTK4_EXAMPLE = $(GTK4_BUILD)/gtk4-editor
# The GTK 4 IM module (the gtk4-im-module section below).
GTK4_IM_BUILD = $(SHIMS_BUILD)/gtk4-im
GTK4_IM_MODULE = $(GTK4_IM_BUILD)/4.0.0/immodules/libim-menubus.so
GTK4_IM_RECORDING = $(SHIMS_BUILD)/gtk4-im-test/4.0.0/immodules/libim-menubus-recording.so
GTK4_IM_MODULE_DIR ?= $(call pkgvar,gtk4,libdir,$(PREFIX)/lib)/gtk-4.0/4.0.0/immodules
GTK4_IM_SOURCES = $(wildcard shims/gtk4-im/*.c) $(wildcard shims/gtk4/*.c)
# gtk4's libdir moved under PREFIX (/usr: /usr/lib/x86_64-linux-gnu).
LIBDIR ?= $(call pkgvar,gtk4,libdir,$(PREFIX)/lib)
INCLUDEDIR ?= $(PREFIX)/include
# The .pc file for this PREFIX, LIBDIR and INCLUDEDIR (relative to
# ${prefix} where they are under it).
GTK4_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' \
	-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	-e 's|@VERSION@|$(GTK4_VERSION)|' shims/gtk4/menubus-gtk4.pc.in

CXX ?= c++
SHIM_CXXFLAGS ?= -O2 -g

# The Qt platform theme, one set of sources for Qt 5 and Qt 6: a thin C++
# adapter over the shim core, whose C files are compiled into the plugin
# (as objects, hidden like the adapter's). QT_NO_KEYWORDS: GIO's headers
# name struct members `signals`.
QT_THEME_SOURCES = shims/qt/menubus-qt-accessible.cpp shims/qt/menubus-qt-bar.cpp shims/qt/menubus-qt-bridge.cpp shims/qt/menubus-qt-facts.cpp \
	shims/qt/menubus-qt-keys.cpp shims/qt/menubus-qt-menu.cpp shims/qt/menubus-qt-text.cpp shims/qt/menubus-qt-theme.cpp
QT_THEME_HEADERS = shims/qt/menubus-qt.h
SHIM_GIO_CFLAGS = $(shell pkg-config --cflags gio-unix-2.0 2>/dev/null)
SHIM_GIO_LIBS = $(shell pkg-config --libs gio-unix-2.0 2>/dev/null)

# The Qt platform theme for Qt $(1): moc's folder is the Qt$(1)Core
# pkg-config variable $(2); $(3) the Debian packages it needs. Beside it,
# tests/qt-toolkit-facts, the check of the Qt details the theme relies on
# (run by QtToolkitFactsTests).
define qt_theme
QT$(1)_BUILD = $$(SHIMS_BUILD)/qt$(1)
QT$(1)_PLUGIN = $$(QT$(1)_BUILD)/platformthemes/libmenubus.so
QT$(1)_FACTS = $$(QT$(1)_BUILD)/tests/qt-toolkit-facts
QT$(1)_MOC ?= $$(shell pkg-config --variable=$(2) Qt$(1)Core 2>/dev/null)/moc
QT$(1)_VERSION := $$(shell pkg-config --modversion Qt$(1)Gui 2>/dev/null)
QT$(1)_INCLUDE := $$(shell pkg-config --variable=includedir Qt$(1)Gui 2>/dev/null)
# Qt's private headers (QtCore's and QtGui's) and the mkspec they include.
QT$(1)_FLAGS := -I$$(shell pkg-config --variable=libdir Qt$(1)Core 2>/dev/null)/qt$(1)/mkspecs/linux-g++ \
	$$(foreach m,QtCore QtGui,-I$$(QT$(1)_INCLUDE)/$$(m)/$$(QT$(1)_VERSION) -I$$(QT$(1)_INCLUDE)/$$(m)/$$(QT$(1)_VERSION)/$$(m)) \
	$$(shell pkg-config --cflags Qt$(1)Widgets 2>/dev/null)
QT$(1)_PRESENT := $$(shell pkg-config --exists Qt$(1)Widgets gio-unix-2.0 2>/dev/null \
	&& test -d "$$(QT$(1)_INCLUDE)/QtGui/$$(QT$(1)_VERSION)/QtGui/qpa" && echo yes)
QT$(1)_OBJECTS = $$(patsubst shims/qt/%.cpp,$$(QT$(1)_BUILD)/obj/%.o,$$(QT_THEME_SOURCES)) \
	$$(patsubst shims/core/%.c,$$(QT$(1)_BUILD)/obj/core/%.o,$$(SHIM_CORE_SOURCES))
QT_THEMES += $$(if $$(QT$(1)_PRESENT),$$(QT$(1)_PLUGIN) $$(QT$(1)_FACTS))
QT_MISSING += $$(if $$(QT$(1)_PRESENT),,$(3))

qt$(1)-theme: $$(QT$(1)_PLUGIN) $$(QT$(1)_FACTS)

# Qt's plugin folder under PREFIX (/usr: /usr/lib/x86_64-linux-gnu/qt$(1)/plugins);
# Qt reads another only through QT_PLUGIN_PATH.
QT$(1)_THEME_DIR ?= $$(call pkgvar,Qt$(1)Core,libdir,$$(PREFIX)/lib)/qt$(1)/plugins/platformthemes

install-qt$(1)-theme: $$(if $$(BUILD_USER),shims-as-build-user,$$(QT$(1)_PLUGIN))
	install -D -m 0644 $$(QT$(1)_PLUGIN) $$(DESTDIR)$$(QT$(1)_THEME_DIR)/libmenubus.so

$$(QT$(1)_BUILD)/menubus-qt-theme.moc: shims/qt/menubus-qt-theme.cpp shims/qt/menubus.json
	@test -n "$$(QT$(1)_PRESENT)" || { echo "make: Qt $(1)'s headers are missing: apt-get install $(3) libglib2.0-dev" >&2; exit 1; }
	@mkdir -p $$(dir $$@)
	$$(QT$(1)_MOC) -Ishims/qt $$(filter -I% -D%,$$(QT$(1)_FLAGS)) -o $$@ $$<

$$(QT$(1)_BUILD)/obj/%.o: shims/qt/%.cpp $$(QT_THEME_HEADERS) $$(SHIM_CORE_HEADERS) $$(QT$(1)_BUILD)/menubus-qt-theme.moc
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CPPFLAGS) $$(SHIM_CXXFLAGS) $$(CXXFLAGS) -std=c++17 -Wall -Wextra -fPIC -fvisibility=hidden -DQT_NO_KEYWORDS \
		-I$$(QT$(1)_BUILD) -Ishims/qt $$(SHIM_CORE_CFLAGS) $$(QT$(1)_FLAGS) $$(SHIM_GIO_CFLAGS) -c -o $$@ $$<

$$(QT$(1)_BUILD)/obj/core/%.o: shims/core/%.c $$(SHIM_CORE_HEADERS) $$(SHIM_CLIENT_HEADER)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(SHIM_CFLAGS) $$(CFLAGS) $$(SHIM_WARNINGS) -fPIC -fvisibility=hidden \
		$$(SHIM_CORE_CFLAGS) $$(SHIM_GIO_CFLAGS) -c -o $$@ $$<

$$(QT$(1)_PLUGIN): $$(QT$(1)_OBJECTS)
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(SHIM_CXXFLAGS) $$(CXXFLAGS) -shared -o $$@ $$^ \
		$$(LDFLAGS) -Wl,--as-needed -Wl,-z,defs $$(shell pkg-config --libs Qt$(1)Widgets 2>/dev/null) $$(SHIM_GIO_LIBS)

# The adapter without its plugin class, and the check of Qt's details.
$$(QT$(1)_FACTS): shims/qt/tests/qt-toolkit-facts.cpp $$(filter-out %/menubus-qt-theme.o,$$(QT$(1)_OBJECTS)) $$(QT_THEME_HEADERS)
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CPPFLAGS) $$(SHIM_CXXFLAGS) $$(CXXFLAGS) -std=c++17 -Wall -Wextra -fPIC -DQT_NO_KEYWORDS \
		-Ishims/qt $$(SHIM_CORE_CFLAGS) $$(QT$(1)_FLAGS) $$(SHIM_GIO_CFLAGS) -o $$@ $$(filter %.cpp %.o,$$^) \
		$$(LDFLAGS) $$(shell pkg-config --libs Qt$(1)Widgets 2>/dev/null) $$(SHIM_GIO_LIBS)
endef

$(eval $(call qt_theme,5,host_bins,qtbase5-dev qtbase5-private-dev))
$(eval $(call qt_theme,6,libexecdir,qt6-base-dev qt6-base-private-dev))

.PHONY: install-gtk4-im-module
.PHONY: shims qt5-theme qt6-theme install-qt5-theme install-qt6-theme install-shims uninstall-shims install-gtk3-module install-gtk4-library install-gtk4-dev

shims: $(GTK3_MODULE) $(GTK3_FACTS) $(GTK4_LIB) $(GTK4_LINKS) $(GTK4_PC) $(GTK4_EXAMPLE) $(QT_THEMES) $(SHIMS_BUILD)/tests/core-test $(SHIMS_BUILD)/tests/core-test-asan \
	$(GTK4_IM_MODULE) $(GTK4_IM_RECORDING)
	@test -z "$(strip $(QT_MISSING))" || echo "make: a Qt platform theme is not built: Qt's headers are missing (apt-get install$(QT_MISSING))" >&2

# The Client interface the shims serve, from the contract itself.
$(SHIM_CLIENT_HEADER): dbus/org.menubus.MenuBus1.Client.xml
	@mkdir -p $(dir $@)
	{ echo '/* Made by the build from dbus/org.menubus.MenuBus1.Client.xml. */'; \
	  echo '#define MB_CLIENT_XML \'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n" \\/' $<; \
	  echo '    ""'; } > $@.tmp && mv $@.tmp $@

$(GTK3_MODULE): $(wildcard shims/gtk3/*.c shims/gtk3/*.h) $(SHIM_COMMON) $(SHIM_CLIENT_HEADER)
	@pkg-config --exists gtk+-3.0 || { echo "make: GTK 3's headers are missing: apt-get install libgtk-3-dev" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) -fPIC -shared -fvisibility=hidden \
		$(SHIM_CORE_CFLAGS) $(shell pkg-config --cflags gtk+-3.0 gio-unix-2.0 gmodule-2.0) \
		-Ishims/gtk3 -o $@ $(wildcard shims/gtk3/*.c) $(SHIM_CORE_SOURCES) \
		$(LDFLAGS) -Wl,--as-needed -Wl,-z,defs $(shell pkg-config --libs gtk+-3.0 gio-unix-2.0 gmodule-2.0)

GTK4_REQUIRED = @pkg-config --exists gtk4 || { echo "make: GTK 4's headers are missing: apt-get install libgtk-4-dev" >&2; exit 1; }

# Only menubus_gtk4_attach and menubus_gtk4_detach are exported (hidden
# visibility, G_MODULE_EXPORT on those two).
$(GTK4_LIB): $(wildcard shims/gtk4/*.c shims/gtk4/*.h) $(SHIM_COMMON) $(SHIM_CLIENT_HEADER)
	$(GTK4_REQUIRED)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) -fPIC -shared -fvisibility=hidden \
		$(SHIM_CORE_CFLAGS) $(shell pkg-config --cflags gtk4 gio-unix-2.0) \
		-Wl,-soname,$(GTK4_SONAME) -o $@ $(wildcard shims/gtk4/*.c) $(SHIM_CORE_SOURCES) \
		$(LDFLAGS) -Wl,--as-needed -Wl,-z,defs $(shell pkg-config --libs gtk4 gio-unix-2.0)

$(GTK4_LINKS): $(GTK4_LIB)
	ln -sf $(notdir $<) $@

$(GTK4_PC): shims/gtk4/menubus-gtk4.pc.in
	@mkdir -p $(dir $@)
	$(GTK4_PC_SED) > $@

# The example, as an app would build it, against the library in the build
# folder; it finds the library beside itself.
$(GTK4_EXAMPLE): examples/gtk4-editor/main.c examples/gtk4-editor/toolbar.c examples/gtk4-editor/toolbar.h \
		shims/gtk4/menubus-gtk4.h $(GTK4_LINKS)
	$(GTK4_REQUIRED)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) -Wall -Wextra -Ishims/gtk4 $(shell pkg-config --cflags gtk4) \
		-o $@ examples/gtk4-editor/main.c examples/gtk4-editor/toolbar.c $(LDFLAGS) -L$(GTK4_BUILD) -lmenubus-gtk4 -Wl,-rpath,'$$ORIGIN' \
		$(shell pkg-config --libs gtk4)

# Under sudo the shims are built as the user who ran it, as the binaries
# are, so no root-owned files are left in the user's tree.
ifneq ($(BUILD_USER),)
install-gtk3-module install-gtk4-library install-gtk4-im-module: shims-as-build-user
# (What the install targets take only: not the example; the Qt themes
# where Qt's headers are, as install-shims installs them.)
shims-as-build-user:
	runuser -u $(BUILD_USER) -- env PATH="$$PATH" $(MAKE) --no-print-directory $(GTK3_MODULE) $(GTK4_LIB) $(GTK4_IM_MODULE) $(QT_THEMES)
.PHONY: shims-as-build-user
else
install-gtk3-module: $(GTK3_MODULE)
install-gtk4-library: $(GTK4_LIB)
install-gtk4-im-module: $(GTK4_IM_MODULE)
endif

# The Qt themes go where their headers were there to build them.
install-shims: install-gtk3-module install-gtk4-library install-gtk4-dev install-gtk4-im-module \
	$(if $(QT5_PRESENT),install-qt5-theme) $(if $(QT6_PRESENT),install-qt6-theme)

install-gtk3-module:
	install -D -m 0644 $(GTK3_MODULE) $(DESTDIR)$(GTK3_MODULE_DIR)/libmenubus.so

install-gtk4-library:
	install -D -m 0644 $(GTK4_LIB) $(DESTDIR)$(LIBDIR)/$(notdir $(GTK4_LIB))
	ln -sf $(notdir $(GTK4_LIB)) $(DESTDIR)$(LIBDIR)/$(GTK4_SONAME)

# Nothing built: the header, the symlink the linker takes, the .pc file.
install-gtk4-dev:
	install -D -m 0644 shims/gtk4/menubus-gtk4.h $(DESTDIR)$(INCLUDEDIR)/menubus-gtk4/menubus-gtk4.h
	install -d -m 0755 $(DESTDIR)$(LIBDIR)/pkgconfig
	ln -sf $(notdir $(GTK4_LIB)) $(DESTDIR)$(LIBDIR)/libmenubus-gtk4.so
	$(GTK4_PC_SED) > $(DESTDIR)$(LIBDIR)/pkgconfig/menubus-gtk4.pc
	chmod 0644 $(DESTDIR)$(LIBDIR)/pkgconfig/menubus-gtk4.pc

uninstall-shims:
	rm -f $(DESTDIR)$(GTK4_IM_MODULE_DIR)/libim-menubus.so
	rm -f $(DESTDIR)$(GTK3_MODULE_DIR)/libmenubus.so
	rm -f $(DESTDIR)$(LIBDIR)/$(notdir $(GTK4_LIB)) $(DESTDIR)$(LIBDIR)/$(GTK4_SONAME) \
		$(DESTDIR)$(LIBDIR)/libmenubus-gtk4.so $(DESTDIR)$(LIBDIR)/pkgconfig/menubus-gtk4.pc \
		$(DESTDIR)$(INCLUDEDIR)/menubus-gtk4/menubus-gtk4.h
	-rmdir $(DESTDIR)$(INCLUDEDIR)/menubus-gtk4 2>/dev/null
	rm -f $(DESTDIR)$(QT5_THEME_DIR)/libmenubus.so $(DESTDIR)$(QT6_THEME_DIR)/libmenubus.so

# What the GTK 3 module relies on that GTK does not promise, checked
# against the installed GTK by the module's own recogniser (ToolkitFactsTests
# runs it under Xvfb).
$(GTK3_FACTS): shims/gtk3/facts/gtk3-facts.c shims/gtk3/gtk3-items.c shims/gtk3/gtk3-field.c shims/gtk3/gtk3-bar.c $(wildcard shims/gtk3/*.h) $(SHIM_COMMON) $(SHIM_CLIENT_HEADER)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) $(SHIM_CORE_CFLAGS) -Ishims/gtk3 \
		$(shell pkg-config --cflags gtk+-3.0 gio-unix-2.0) -o $@ shims/gtk3/facts/gtk3-facts.c \
		shims/gtk3/gtk3-items.c shims/gtk3/gtk3-field.c shims/gtk3/gtk3-bar.c $(SHIM_CORE_SOURCES) $(LDFLAGS) $(shell pkg-config --libs gtk+-3.0 gio-unix-2.0)

# ---------- shim-core-test ----------
# The shim core's own tests (shims/tests): a GLib test program that links
# the core with a fake widget and runs it against a fake menubusd on a
# private bus (GTestDBus): `core-test -l` lists the cases, `core-test -p
# PATH` runs one (Tests/MenuBusTests/ShimCoreTests.swift runs each). The
# same program under AddressSanitizer and UBSan is core-test-asan; it takes
# none of the build's CFLAGS (Debian's _FORTIFY_SOURCE hides what ASan
# checks).
SHIM_TEST_BUILD = $(SHIMS_BUILD)/tests
SHIM_CORE_TEST = $(SHIM_TEST_BUILD)/core-test
SHIM_CORE_TEST_ASAN = $(SHIM_TEST_BUILD)/core-test-asan
SHIM_TEST_SOURCES = $(wildcard shims/tests/*.c)
SHIM_TEST_HEADERS = $(wildcard shims/tests/*.h)
# The fake serves the contract's own interfaces: dbus/*.xml as C strings.
SHIM_TEST_CONTRACT = $(SHIM_TEST_BUILD)/contract.h
SHIM_TEST_INPUTS = $(SHIM_TEST_SOURCES) $(SHIM_TEST_HEADERS) $(SHIM_COMMON) $(SHIM_CLIENT_HEADER) $(SHIM_TEST_CONTRACT)
SHIM_TEST_FLAGS = $(SHIM_WARNINGS) $(SHIM_CORE_CFLAGS) -I$(SHIM_TEST_BUILD) -Ishims/tests \
	$(shell pkg-config --cflags gio-2.0 gio-unix-2.0)
SHIM_TEST_LIBS = $(shell pkg-config --libs gio-2.0 gio-unix-2.0)
SHIM_ASAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer

# One C string a file: MB_TEST_<NAME>_XML.
shim_test_xml = echo '\#define MB_TEST_$(1)_XML \'; \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n" \\/' $(2); echo '    ""';

$(SHIM_TEST_CONTRACT): dbus/org.menubus.MenuBus1.xml dbus/org.menubus.MenuBus1.Menu.xml
	@mkdir -p $(dir $@)
	{ echo '/* Made by the build from dbus/org.menubus.MenuBus1.xml and dbus/org.menubus.MenuBus1.Menu.xml. */'; \
	  $(call shim_test_xml,MANAGER,dbus/org.menubus.MenuBus1.xml) \
	  $(call shim_test_xml,MENU,dbus/org.menubus.MenuBus1.Menu.xml) } > $@.tmp && mv $@.tmp $@

$(SHIM_CORE_TEST): $(SHIM_TEST_INPUTS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_TEST_FLAGS) -o $@ $(SHIM_TEST_SOURCES) $(SHIM_CORE_SOURCES) \
		$(LDFLAGS) $(SHIM_TEST_LIBS)

$(SHIM_CORE_TEST_ASAN): $(SHIM_TEST_INPUTS)
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_ASAN_FLAGS) $(SHIM_TEST_FLAGS) -o $@ $(SHIM_TEST_SOURCES) $(SHIM_CORE_SOURCES) $(SHIM_TEST_LIBS)

shim-core-test: $(SHIM_CORE_TEST) $(SHIM_CORE_TEST_ASAN)
.PHONY: shim-core-test

# ---------- gtk4-im-module ----------
# The GTK 4 input-method module `menubus` (shims/gtk4-im): GTK 4 loads no
# GTK_MODULES, but loads the GIO modules of its immodules folder into every
# app. $(SHIMS_BUILD)/gtk4-im/4.0.0/immodules/libim-menubus.so, so that
# GTK_PATH=$(SHIMS_BUILD)/gtk4-im GTK_IM_MODULE=menubus loads it
# uninstalled. The GTK 4 library's sources and the shim core are compiled
# in; a version script exports only the GIO module's entry points, so an
# app linked with libmenubus-gtk4.so keeps its own copy apart. Beside it,
# for the tests only, a recording IM module (gtk4-im-test/…/libim-menubus-
# recording.so, context `menubus-recording`) that logs each call it gets.
# The module installs where Debian's IM modules go (ibus-gtk4's
# libim-ibus.so): libgtk-4-1's file trigger runs gio-querymodules on the
# folder, which writes its giomodule.cache.
# (Its variables are defined with the GTK 4 library's, above: the shims and
# install rules name them before this section.)

$(GTK4_IM_MODULE): $(GTK4_IM_SOURCES) $(wildcard shims/gtk4-im/*.h shims/gtk4/*.h) shims/gtk4-im/im-menubus.map \
		$(SHIM_COMMON) $(SHIM_CLIENT_HEADER)
	$(GTK4_REQUIRED)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) -fPIC -shared -fvisibility=hidden \
		$(SHIM_CORE_CFLAGS) -Ishims/gtk4 -Ishims/gtk4-im $(shell pkg-config --cflags gtk4 gio-unix-2.0) \
		-o $@ $(GTK4_IM_SOURCES) $(SHIM_CORE_SOURCES) \
		$(LDFLAGS) -Wl,--version-script=shims/gtk4-im/im-menubus.map -Wl,--as-needed -Wl,-z,defs \
		$(shell pkg-config --libs gtk4 gio-unix-2.0)

$(GTK4_IM_RECORDING): shims/gtk4-im/tests/recording-im.c
	$(GTK4_REQUIRED)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(CFLAGS) $(SHIM_WARNINGS) -fPIC -shared -fvisibility=hidden \
		$(shell pkg-config --cflags gtk4) -o $@ $< $(LDFLAGS) -Wl,--as-needed -Wl,-z,defs $(shell pkg-config --libs gtk4)

gtk4-im-module: $(GTK4_IM_MODULE) $(GTK4_IM_RECORDING)
.PHONY: gtk4-im-module

install-gtk4-im-module:
	install -D -m 0644 $(GTK4_IM_MODULE) $(DESTDIR)$(GTK4_IM_MODULE_DIR)/libim-menubus.so
