# Test helpers for a Wayland session: the real-app tests run programs under
# a headless compositor (sway) too, and type through mb-vkbd, which holds
# one zwp_virtual_keyboard_v1 with one keymap for the whole run, and point
# and click through mb-vptr (one zwlr_virtual_pointer_v1); both are built
# with mb-wl-common.c (the connection and the command loop).  Included by the
# top Makefile: `make wayland-helpers` builds .build/wayland/mb-vkbd and
# mb-vptr (scripts/test does, beside `make shims`).  Needs libwayland-dev,
# libwayland-bin (wayland-scanner) and libxkbcommon-dev (scripts/setup).

WAYLAND_BUILD ?= .build/wayland
WAYLAND_SCANNER ?= wayland-scanner
WAYLAND_PROTOCOL = Tests/wayland/virtual-keyboard-unstable-v1.xml
WAYLAND_GENERATED = $(WAYLAND_BUILD)/virtual-keyboard-unstable-v1-client-protocol.h \
	$(WAYLAND_BUILD)/virtual-keyboard-unstable-v1-protocol.c
MB_VKBD = $(WAYLAND_BUILD)/mb-vkbd
POINTER_PROTOCOL = Tests/wayland/wlr-virtual-pointer-unstable-v1.xml
POINTER_GENERATED = $(WAYLAND_BUILD)/wlr-virtual-pointer-unstable-v1-client-protocol.h \
	$(WAYLAND_BUILD)/wlr-virtual-pointer-unstable-v1-protocol.c
MB_VPTR = $(WAYLAND_BUILD)/mb-vptr
WAYLAND_COMMON = Tests/wayland/mb-wl-common.c Tests/wayland/mb-wl-common.h

.PHONY: wayland-helpers
wayland-helpers: $(MB_VKBD) $(MB_VPTR)

$(WAYLAND_BUILD)/virtual-keyboard-unstable-v1-client-protocol.h: $(WAYLAND_PROTOCOL)
	@mkdir -p $(@D)
	$(WAYLAND_SCANNER) client-header $< $@

$(WAYLAND_BUILD)/virtual-keyboard-unstable-v1-protocol.c: $(WAYLAND_PROTOCOL)
	@mkdir -p $(@D)
	$(WAYLAND_SCANNER) private-code $< $@

$(MB_VKBD): Tests/wayland/mb-vkbd.c $(WAYLAND_COMMON) $(WAYLAND_GENERATED)
	$(CC) $(CPPFLAGS) -O2 -g $(CFLAGS) -Wall -Wextra -I$(WAYLAND_BUILD) -o $@ \
		Tests/wayland/mb-vkbd.c Tests/wayland/mb-wl-common.c $(WAYLAND_BUILD)/virtual-keyboard-unstable-v1-protocol.c \
		$(LDFLAGS) $(shell pkg-config --cflags --libs wayland-client xkbcommon)

$(WAYLAND_BUILD)/wlr-virtual-pointer-unstable-v1-client-protocol.h: $(POINTER_PROTOCOL)
	@mkdir -p $(@D)
	$(WAYLAND_SCANNER) client-header $< $@

$(WAYLAND_BUILD)/wlr-virtual-pointer-unstable-v1-protocol.c: $(POINTER_PROTOCOL)
	@mkdir -p $(@D)
	$(WAYLAND_SCANNER) private-code $< $@

$(MB_VPTR): Tests/wayland/mb-vptr.c $(WAYLAND_COMMON) $(POINTER_GENERATED)
	$(CC) $(CPPFLAGS) -O2 -g $(CFLAGS) -Wall -Wextra -I$(WAYLAND_BUILD) -o $@ \
		Tests/wayland/mb-vptr.c Tests/wayland/mb-wl-common.c $(WAYLAND_BUILD)/wlr-virtual-pointer-unstable-v1-protocol.c \
		$(LDFLAGS) $(shell pkg-config --cflags --libs wayland-client)
