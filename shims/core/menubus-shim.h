/* The shim core: the part of MenuBus's toolkit shims that speaks to
 * menubusd, one connection per process, the app's registration, each text
 * field as a context whose selection follows coalesced, undo steps of
 * fields that have no undo of their own, and presented menus. It knows
 * GLib and GIO only; the GTK 3 module, the GTK 4 library and the Qt theme
 * supply the widgets. Its files, by concern: mb-connection.c, mb-field.c,
 * mb-menu.c, mb-undo.c, mb-items.c, mb-shortcut.c, mb-bar.c; what they do alike is
 * menubus-policy.h, the contract's names menubus-names.h.
 *
 * Everything runs on the thread of the default main context (GTK's, and
 * Qt's when its event loop is GLib's). Nothing here ever waits on
 * menubusd: every call is asynchronous, and an answer finds its field by
 * serial, so one that comes after the field went reaches nothing. */
#ifndef MENUBUS_SHIM_H
#define MENUBUS_SHIM_H

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _MbField MbField;
typedef struct _MbMenu MbMenu;

typedef enum {
    MB_SELECTION_NONE,
    MB_SELECTION_CARET,
    MB_SELECTION_RANGE,
    MB_SELECTION_ALL,
} MbSelectionKind;

typedef struct {
    MbSelectionKind kind;
    guint length;  /* selected characters */
    gchar *text;   /* the selected text, owned; NULL when none */
    gchar **attributes; /* rich text: the selection's (`bold`, ...), owned; NULL */
} MbSelection;

/* One change of a field's text, in characters. */
typedef struct {
    gboolean insert; /* else a deletion */
    guint offset;
    gchar *text;
} MbEdit;

typedef enum {
    MB_FIELD_EDITABLE = 1 << 0,
    MB_FIELD_HAS_CONTENT = 1 << 1,
    /* The field keeps undo steps of MenuBus (it has none of its own). */
    MB_FIELD_MENUBUS_UNDO = 1 << 2,
    /* The widget has an undo of its own that `perform` runs (`undo`,
     * `redo`): menubusd offers Undo and Redo and asks the widget. */
    MB_FIELD_OWN_UNDO = 1 << 3,
    /* Rich text: the context says so (HTML and plain text) and offers
     * Bold, Italic, Underline and Paste and Match Style to `perform`. */
    MB_FIELD_RICH_TEXT = 1 << 4,
} MbFieldFlags;

/* What the toolkit does for a field. `widget` is the pointer given to
 * mb_field_new; the shim never touches it otherwise. */
typedef struct {
    MbFieldFlags (*flags) (gpointer widget);
    void (*selection) (gpointer widget, MbSelection *out);
    /* A standard command chosen in a menu (`cut`, `copy`, `paste`,
     * `delete`, `select-all`); `replace-selection` carries `text` and the
     * undo step's name. */
    void (*perform) (gpointer widget, const gchar *command, const gchar *text, const gchar *undo_name);
    /* Undo or redo: these edits, in order. */
    void (*apply) (gpointer widget, const MbEdit *edits, guint n_edits);
    /* Optional (NULL: not served): shows the widget's edit menu at its
     * selection or caret, as for the Menu key (ShowMenuForFocus, a
     * desktop shortcut), without waiting for it to close; FALSE when it
     * cannot now. */
    gboolean (*show_menu) (gpointer widget, guint32 timestamp);
    /* Optional (NULL: no edit bar): shows the compact edit bar over the
     * selection, replacing one shown: `items` (a(ssa{sv}), every parent
     * "") are what it holds in order, and the toolkit adds a "›" that
     * opens the whole menu (`show_menu`). It must not take the keyboard
     * focus. An item chosen goes to mb_field_choose. */
    void (*show_bar) (gpointer widget, GVariant *items);
    /* Hides the bar (the selection changed, the focus went, menubusd went,
     * or the toolkit asked: mb_field_dismiss_bar). */
    void (*hide_bar) (gpointer widget);
} MbFieldOps;

/* The process's connection, opened on first use; FALSE when the module is
 * turned off for this program (MENUBUS_DISABLE, the per-app list). */
gboolean mb_shim_enabled (const gchar *toolkit);

/* menubusd came (`running` TRUE, once the focused field is published
 * again) or went (FALSE, after every live menu heard of it). One watch a
 * process: the GTK 4 library's. */
typedef void (*MbDaemonWatch) (gboolean running, gpointer data);
void mb_shim_watch_daemon (MbDaemonWatch watch, gpointer data);

/* The process's connection (NULL until it is open) and menubusd's unique
 * name on it (NULL while it is not running): where a presented menu's
 * export is read from. */
GDBusConnection *mb_shim_connection (void);
const gchar *mb_shim_daemon (void);

/* The app's id as its toolkit knows it (Qt's desktop file name), taken
 * when it is a reverse-DNS id; else, at the first Register, the
 * GApplication's, the desktop file's, or the program's name. */
void mb_shim_set_app_id (const gchar *app_id);

/* What the clipboard offers now (MIME types); every field's next update
 * carries it. */
void mb_shim_set_clipboard_types (const gchar *const *types);

/* Standard commands the toolkit's own menus show already (`undo`, `cut`,
 * ...): menus of mb_menu_present leave them out (`omit-commands`). */
void mb_shim_omit_commands (const gchar *const *commands);

MbField *mb_field_new (gpointer widget, const MbFieldOps *ops);
/* The widget is going: its context and undo history are removed. */
void mb_field_free (MbField *field);
/* Focused: registers the app and publishes the field as a context. */
void mb_field_focused (MbField *field);
/* The field lost the keyboard focus (its window's included): menubusd
 * hears it with the next update, so a shortcut no longer asks it. */
void mb_field_blurred (MbField *field);
/* Text, selection or flags changed: an update follows, coalesced, with at
 * most one call in flight. */
void mb_field_changed (MbField *field);
const gchar *mb_field_context_id (MbField *field);

/* Undo steps of a field with MB_FIELD_MENUBUS_UNDO. An edit outside an
 * action is typing, merged while the caret moves with it. */
void mb_field_record (MbField *field, const MbEdit *edit);
void mb_field_begin_action (MbField *field, const gchar *name);
void mb_field_end_action (MbField *field);
/* Applying undo or redo: edits made meanwhile are not recorded. */
gboolean mb_field_is_applying (MbField *field);
void mb_field_undo (MbField *field);
void mb_field_redo (MbField *field);

/* A key the app let pass while the field has the focus, as a GTK
 * accelerator (`<Control><Alt>u`): when an item of the field's edit menu
 * has it as its shortcut (a provider's), that item is chosen for the
 * selection, as from the menu. TRUE when it was chosen now (the key is
 * used); FALSE when the key stays unused (no such item, no selection, a
 * key without Control, Alt or Super), or when menubusd is asked first
 * and the item is chosen when it answers, while the selection stands. */
gboolean mb_field_shortcut (MbField *field, const gchar *accelerator, guint32 timestamp);

/* Chooses an item of the field's edit menu (`item_id` as the edit menu or
 * the bar gave it) for the selection, as from the menu: a presentation
 * that is never drawn, and the item activated as soon as it comes. */
void mb_field_choose (MbField *field, const gchar *item_id, guint32 timestamp);

/* The edit bar, opt-in: [Edit Bar] of menubus/integration.conf (the
 * user's, else the system's), Enabled=true for every program or Apps= for
 * the programs it names. Off by default. */
gboolean mb_shim_edit_bar_enabled (void);
/* A selection was made with the pointer (a button released over the field
 * with text selected): once it has stood still MB_BAR_WAIT_MS, the bar
 * shows (`show_bar`) with the field's edit menu's commands and providers. */
void mb_field_pointer_selected (MbField *field);
/* The toolkit hides the bar (a key, Escape, a click elsewhere, a scroll),
 * or one about to show does not. */
void mb_field_dismiss_bar (MbField *field);

/* The menu's items changed (`items` is a(ssa{sv}) as GetLayout gives it),
 * or, with `items` NULL, the menu closed on menubusd's side. */
typedef void (*MbMenuChanged) (MbMenu *menu, GVariant *items, gpointer data);

/* Presents the field's edit menu without waiting: `items` is the menu
 * read ahead for this very selection (a reference), or NULL, and the
 * toolkit's menu opens at once with it. Items that come later (one
 * GetEditMenu, then the presentation's layout where it differs) and later
 * changes reach `changed`; an item chosen before the presentation came is
 * activated when it does. Every `items` given is a(ssa{sv}) within the
 * contract's bounds (menubus-names.h). Returns NULL when menubusd cannot
 * be asked at all. */
MbMenu *mb_menu_present (MbField *field, MbMenuChanged changed, gpointer data, GVariant **items);
/* An item was chosen (it closes the menu on menubusd's side). */
void mb_menu_activate (MbMenu *menu, const gchar *item_id, guint32 timestamp);
/* The toolkit's menu closed: the presentation ends (dismissed unless an
 * item was chosen) and `changed` is not called again. */
void mb_menu_close (MbMenu *menu);

/* A presentation the toolkit draws from its org.gtk.Menus export (GTK 4's
 * extra-menu) rather than from GetLayout. */
typedef enum {
    MB_MENU_LIVE,   /* presented: `path` names its export on mb_shim_daemon () */
    MB_MENU_CLOSED, /* closed on menubusd's side (chosen from, dismissed, its
                     * context removed) or menubusd went */
    MB_MENU_EMPTY,  /* not presented: there is nothing to show (NothingToShow) */
    MB_MENU_FAILED, /* not presented: any other error */
} MbMenuEvent;

typedef void (*MbMenuLive) (MbMenu *menu, MbMenuEvent event, const gchar *path, gpointer data);

/* Presents the field's edit menu without waiting: `live` hears once
 * whether it was presented (MB_MENU_LIVE, or EMPTY/FAILED), and then
 * CLOSED when it ends on menubusd's side; its items are followed only
 * after mb_menu_follow.
 * `omit_commands` is PresentMenu's `omit-commands` (NULL: none). Returns
 * NULL when menubusd cannot be asked now (not running). The toolkit still
 * calls mb_menu_close once it is done with the menu, whatever happened;
 * `live` is not called after that. */
MbMenu *mb_menu_present_live (MbField *field, const gchar *const *omit_commands, MbMenuLive live, gpointer data);
/* Right after mb_menu_present_live: its items are followed too, as
 * mb_menu_present's are (GetLayout once it is presented, LayoutChanged),
 * and reach `changed` until it ends; `live` still hears how it ends. For
 * a toolkit that builds the menu itself rather than read the export. */
void mb_menu_follow (MbMenu *menu, MbMenuChanged changed);

void mb_selection_clear (MbSelection *selection);

G_END_DECLS

#endif
