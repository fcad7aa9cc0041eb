/* What every shim does alike, decided once (docs/DESIGN.md, "In-app
 * shims"): the GTK 3 module, the GTK 4 library and the Qt theme all run
 * the core that reads these. */
#ifndef MENUBUS_POLICY_H
#define MENUBUS_POLICY_H

/* A call whose answer nobody waits for still ends: menubusd answers at
 * once, so after this long it is stalled, not slow. Nothing on the UI
 * thread ever waits for any call. */
#define MB_CALL_TIMEOUT_MS 5000
/* How long selection changes gather before one update goes (a frame);
 * at most one update of a field is in flight. */
#define MB_COALESCE_MS 16
/* After a focused field's selection has stood still this long, its edit
 * menu is read ahead (GetEditMenu, which asks nothing of apps or
 * providers), so a menu opened then shows MenuBus's items at once. */
#define MB_READ_AHEAD_MS 100
/* The edit bar shows once a selection made with the pointer has stood
 * still this long (a double-click's second click comes sooner than this
 * after the first's selection, so the bar does not flash for a caret),
 * with at most this many items before its "›". */
#define MB_BAR_WAIT_MS 40
#define MB_BAR_MAX_ITEMS 6
/* Contexts one process keeps published (the API allows 256): the least
 * recently focused field's context goes first. */
#define MB_MAX_CONTEXTS 64
/* Items an app's open menu takes from MenuBus: the contract's bound. */
#define MB_MAX_MENU_ITEMS MB_MAX_ELEMENTS
/* Debug output, never on stderr in normal use: G_MESSAGES_DEBUG=MenuBus
 * shows it (GLib's log domain). Never a selection's text in it. */
#define MB_LOG_DOMAIN "MenuBus"
#define MB_DEBUG(...) g_log (MB_LOG_DOMAIN, G_LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
