/*
 * mb-vkbd: one Wayland virtual keyboard for a whole test run.
 *
 * Binds the seat and zwp_virtual_keyboard_manager_v1 of the compositor
 * WAYLAND_DISPLAY names, makes one virtual keyboard, gives it once a full
 * keymap compiled by libxkbcommon (the layout of XKB_DEFAULT_LAYOUT, else
 * us), prints "ready", then reads commands one a line on stdin:
 *
 *     key ctrl+shift+Left shift+F10 Menu    key combinations, xdotool's way:
 *                                           keysym names joined with +,
 *                                           ctrl/shift/alt/super for modifiers
 *     type TEXT                             each character of TEXT
 *
 * and answers "ok" or "error WHY" for each. Keysyms are found in the one
 * keymap (keycode and level, the level's modifiers sent as modifiers
 * around the key), never in a keymap sent again: programs that read
 * shortcuts from the first keymap they saw (GTK 3) see every key.
 * A roundtrip follows every request, so the compositor has handled each
 * event before the next one is sent and before the answer.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xkbcommon/xkbcommon.h>

#include "mb-wl-common.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"

#define KEY_RELEASED 0
#define KEY_PRESSED 1
#define MAX_KEYS 16

struct key {
    xkb_keycode_t code;
    xkb_mod_mask_t mods; /* the modifiers that give the keysym at its level */
};

static struct wl_display *display;
static struct zwp_virtual_keyboard_v1 *keyboard;
static struct xkb_keymap *keymap;
static struct xkb_state *state;

static bool sync_display(void)
{
    return wl_display_roundtrip(display) >= 0;
}

/* The keymap, compiled once and handed to the compositor once (a memfd). */
static bool send_keymap(void)
{
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (context == NULL)
        return false;
    const char *layout = getenv("XKB_DEFAULT_LAYOUT");
    struct xkb_rule_names names = {.layout = layout && *layout ? layout : "us"};
    keymap = xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS);
    xkb_context_unref(context);
    if (keymap == NULL)
        return false;
    state = xkb_state_new(keymap);
    char *text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
    if (text == NULL || state == NULL)
        return false;
    size_t size = strlen(text) + 1;
    int fd = memfd_create("mb-vkbd-keymap", MFD_CLOEXEC);
    bool written = fd >= 0 && write(fd, text, size) == (ssize_t)size;
    free(text);
    if (!written)
        return false;
    zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    bool synced = sync_display();
    close(fd);
    return synced;
}

static int popcount(xkb_mod_mask_t mask)
{
    return __builtin_popcount(mask);
}

/* The key and modifiers that give `keysym` in the first layout: the lowest
 * level first, then the lowest keycode; of a level's modifier masks the
 * smallest one without Caps Lock. */
static bool find_key(xkb_keysym_t keysym, struct key *found)
{
    xkb_mod_index_t lock = xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_CAPS);
    xkb_mod_mask_t lock_mask = lock == XKB_MOD_INVALID ? 0 : (1u << lock);
    for (xkb_level_index_t level = 0; level < 8; level++) {
        for (xkb_keycode_t code = xkb_keymap_min_keycode(keymap); code <= xkb_keymap_max_keycode(keymap); code++) {
            if (level >= xkb_keymap_num_levels_for_key(keymap, code, 0))
                continue;
            const xkb_keysym_t *syms;
            if (xkb_keymap_key_get_syms_by_level(keymap, code, 0, level, &syms) != 1 || syms[0] != keysym)
                continue;
            xkb_mod_mask_t masks[16];
            size_t count = xkb_keymap_key_get_mods_for_level(keymap, code, 0, level, masks, 16);
            if (count == 0 && level > 0)
                continue;
            xkb_mod_mask_t best = count ? masks[0] : 0;
            for (size_t i = 1; i < count; i++) {
                bool better_lock = (best & lock_mask) && !(masks[i] & lock_mask);
                if (better_lock || (!((masks[i] & lock_mask) && !(best & lock_mask)) && popcount(masks[i]) < popcount(best)))
                    best = masks[i];
            }
            found->code = code;
            found->mods = best;
            return true;
        }
    }
    return false;
}

/* The compositor's modifiers as this keyboard's own state has them, with `extra` held. */
static void send_modifiers(xkb_mod_mask_t extra)
{
    zwp_virtual_keyboard_v1_modifiers(keyboard, xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED) | extra,
                                      xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
                                      xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED),
                                      xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE));
}

static bool send_key(xkb_keycode_t code, bool pressed)
{
    zwp_virtual_keyboard_v1_key(keyboard, mb_wl_now_ms(), code - 8, pressed ? KEY_PRESSED : KEY_RELEASED);
    xkb_state_update_key(state, code, pressed ? XKB_KEY_DOWN : XKB_KEY_UP);
    send_modifiers(0);
    return sync_display();
}

/* A key of its level: the level's modifiers sent as held around it. */
static bool tap(const struct key *key)
{
    if (key->mods) {
        send_modifiers(key->mods);
        if (!sync_display())
            return false;
    }
    zwp_virtual_keyboard_v1_key(keyboard, mb_wl_now_ms(), key->code - 8, KEY_PRESSED);
    if (!sync_display())
        return false;
    zwp_virtual_keyboard_v1_key(keyboard, mb_wl_now_ms(), key->code - 8, KEY_RELEASED);
    send_modifiers(0);
    return sync_display();
}

/* xdotool's modifier names, as the keysyms of their keys. */
static xkb_keysym_t modifier_keysym(const char *name)
{
    static const struct {
        const char *name;
        xkb_keysym_t keysym;
    } aliases[] = {
        {"ctrl", XKB_KEY_Control_L},  {"control", XKB_KEY_Control_L}, {"shift", XKB_KEY_Shift_L},
        {"alt", XKB_KEY_Alt_L},       {"meta", XKB_KEY_Meta_L},       {"super", XKB_KEY_Super_L},
        {"altgr", XKB_KEY_ISO_Level3_Shift},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].name) == 0)
            return aliases[i].keysym;
    return XKB_KEY_NoSymbol;
}

static xkb_keysym_t keysym_named(const char *name)
{
    xkb_keysym_t keysym = xkb_keysym_from_name(name, XKB_KEYSYM_NO_FLAGS);
    if (keysym == XKB_KEY_NoSymbol)
        keysym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
    return keysym;
}

/* One combination, "ctrl+shift+Left": the modifiers' keys pressed in
 * order, the last key tapped at its level, the modifiers released in
 * reverse order. */
static bool combination(char *spec, char *why, size_t why_size)
{
    char *parts[MAX_KEYS];
    int count = 0;
    for (char *part = strtok(spec, "+"); part != NULL; part = strtok(NULL, "+")) {
        if (count == MAX_KEYS) {
            snprintf(why, why_size, "too many keys in one combination");
            return false;
        }
        parts[count++] = part;
    }
    if (count == 0) {
        snprintf(why, why_size, "an empty key combination");
        return false;
    }
    struct key held[MAX_KEYS];
    struct key last;
    for (int i = 0; i < count; i++) {
        xkb_keysym_t keysym = i < count - 1 ? modifier_keysym(parts[i]) : XKB_KEY_NoSymbol;
        if (keysym == XKB_KEY_NoSymbol)
            keysym = keysym_named(parts[i]);
        struct key *key = i < count - 1 ? &held[i] : &last;
        if (keysym == XKB_KEY_NoSymbol || !find_key(keysym, key)) {
            snprintf(why, why_size, "no key for %s in the keymap", parts[i]);
            return false;
        }
    }
    bool ok = true;
    int pressed = 0;
    for (; pressed < count - 1 && ok; pressed++)
        ok = send_key(held[pressed].code, true);
    if (ok) {
        /* Shift held by the combination: the last key at its own level
         * still needs only its level's modifiers added. */
        ok = tap(&last);
    }
    while (pressed-- > 0)
        ok = send_key(held[pressed].code, false) && ok;
    if (!ok)
        snprintf(why, why_size, "the compositor went away");
    return ok;
}

static bool type_text(const char *text, char *why, size_t why_size)
{
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        /* UTF-8 to a code point. */
        uint32_t code_point = *p;
        int length = 1;
        if (code_point >= 0xf0) {
            code_point &= 0x07;
            length = 4;
        } else if (code_point >= 0xe0) {
            code_point &= 0x0f;
            length = 3;
        } else if (code_point >= 0xc0) {
            code_point &= 0x1f;
            length = 2;
        }
        for (int i = 1; i < length; i++) {
            if ((p[i] & 0xc0) != 0x80) {
                snprintf(why, why_size, "TEXT is not UTF-8");
                return false;
            }
            code_point = (code_point << 6) | (p[i] & 0x3f);
        }
        p += length;
        xkb_keysym_t keysym = code_point == '\n' ? XKB_KEY_Return
                            : code_point == '\t' ? XKB_KEY_Tab
                                                 : xkb_utf32_to_keysym(code_point);
        struct key key;
        if (keysym == XKB_KEY_NoSymbol || !find_key(keysym, &key)) {
            snprintf(why, why_size, "no key types U+%04X in the keymap", code_point);
            return false;
        }
        if (!tap(&key)) {
            snprintf(why, why_size, "the compositor went away");
            return false;
        }
    }
    return true;
}

static bool run(char *line, char *why, size_t why_size)
{
    if (strncmp(line, "type ", 5) == 0)
        return type_text(line + 5, why, why_size);
    if (strncmp(line, "key ", 4) == 0) {
        char *rest = line + 4, *save = NULL;
        int done = 0;
        for (char *spec = strtok_r(rest, " ", &save); spec != NULL; spec = strtok_r(NULL, " ", &save), done++)
            if (!combination(spec, why, why_size))
                return false;
        if (done == 0) {
            snprintf(why, why_size, "key needs a combination");
            return false;
        }
        return true;
    }
    snprintf(why, why_size, "unknown command (key COMBINATION..., type TEXT)");
    return false;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct mb_wl_globals globals;
    if (!mb_wl_connect("mb-vkbd", &zwp_virtual_keyboard_manager_v1_interface, &globals))
        return 1;
    display = globals.display;
    keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(globals.manager, globals.seat);
    if (!send_keymap()) {
        fprintf(stderr, "mb-vkbd: the keymap could not be compiled or sent\n");
        return 1;
    }
    printf("ready\n");

    if (mb_wl_serve("mb-vkbd", display, run) != 0)
        return 1;
    zwp_virtual_keyboard_v1_destroy(keyboard);
    wl_display_roundtrip(display);
    wl_display_disconnect(display);
    return 0;
}
