/* MenuBus in unmodified GTK 3 apps: a GTK module (GTK_MODULES=menubus).
 *
 * Every GtkEntry (GtkSearchEntry and GtkSpinButton included), GtkTextView
 * and selectable GtkLabel takes part: focused, it is published to menubusd
 * as a context whose selection follows; its context menu gets menubusd's
 * edit menu for that selection; GtkEntry and plain GtkTextView, which
 * have no undo in GTK 3, keep MenuBus undo steps ("Undo Typing", Ctrl+Z).
 *
 * Left out: password entries, widgets an app marks with the GObject data
 * key "menubus-exclude", apps listed in menubus/integration.conf, and any
 * app run with MENUBUS_DISABLE=1. */
#include <gtk/gtk.h>
#include <string.h>

#include "menubus-shim.h"
#include "menubus-text-buffer.h"

#define FIELD_KEY "menubus-field"
#define EXCLUDE_KEY "menubus-exclude"
#define POPUP_KEY "menubus-popup"
#define TOPLEVEL_KEY "menubus-keys"

/* ---------- which widgets take part ---------- */

static gboolean
has_own_undo (GtkTextView *view)
{
    /* GtkSourceBuffer (GtkSourceView, gedit's and mousepad's editors)
     * keeps its own undo; the module leaves it alone. */
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
    return buffer && g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), "can-undo") != NULL;
}

static gboolean
takes_part (GtkWidget *widget)
{
    if (g_object_get_data (G_OBJECT (widget), EXCLUDE_KEY))
        return FALSE;
    if (GTK_IS_ENTRY (widget))
        return gtk_entry_get_visibility (GTK_ENTRY (widget)); /* never a password */
    if (GTK_IS_TEXT_VIEW (widget))
        return TRUE;
    if (GTK_IS_LABEL (widget))
        return gtk_label_get_selectable (GTK_LABEL (widget));
    return FALSE;
}

/* ---------- what a field is and does ---------- */

static MbFieldFlags
field_flags (gpointer data)
{
    GtkWidget *widget = data;
    MbFieldFlags flags = 0;
    if (GTK_IS_ENTRY (widget)) {
        if (gtk_editable_get_editable (GTK_EDITABLE (widget)))
            flags |= MB_FIELD_EDITABLE | MB_FIELD_MENUBUS_UNDO;
        if (gtk_entry_get_text_length (GTK_ENTRY (widget)) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    } else if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextView *view = GTK_TEXT_VIEW (widget);
        if (gtk_text_view_get_editable (view)) {
            flags |= MB_FIELD_EDITABLE;
            if (!has_own_undo (view))
                flags |= MB_FIELD_MENUBUS_UNDO;
        }
        if (gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (view)) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    } else if (GTK_IS_LABEL (widget)) {
        if (*gtk_label_get_text (GTK_LABEL (widget)))
            flags |= MB_FIELD_HAS_CONTENT;
    }
    return flags;
}

/* The selection's kind and length, and its text when it can be sent
 * (menubusd takes at most 65536 bytes, so at most that many characters). */
static void
fill_selection (MbSelection *out, gint start, gint end, gint total, gchar *(*text) (gpointer, gint, gint),
                gpointer widget)
{
    if (start > end) {
        gint t = start;
        start = end;
        end = t;
    }
    if (start == end) {
        out->kind = MB_SELECTION_CARET;
        return;
    }
    out->kind = start == 0 && end == total ? MB_SELECTION_ALL : MB_SELECTION_RANGE;
    out->length = (guint) (end - start);
    if (out->length <= 65536)
        out->text = text (widget, start, end);
}

static gchar *
entry_text (gpointer widget, gint start, gint end)
{
    return gtk_editable_get_chars (GTK_EDITABLE (widget), start, end);
}

static gchar *
view_text (gpointer widget, gint start, gint end)
{
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
    GtkTextIter a, b;
    gtk_text_buffer_get_iter_at_offset (buffer, &a, start);
    gtk_text_buffer_get_iter_at_offset (buffer, &b, end);
    return gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
}

static gchar *
label_text (gpointer widget, gint start, gint end)
{
    const gchar *text = gtk_label_get_text (GTK_LABEL (widget));
    const gchar *a = g_utf8_offset_to_pointer (text, start);
    return g_strndup (a, g_utf8_offset_to_pointer (text, end) - a);
}

static void
field_selection (gpointer data, MbSelection *out)
{
    GtkWidget *widget = data;
    gint start = 0, end = 0;
    out->kind = MB_SELECTION_NONE;
    if (GTK_IS_ENTRY (widget)) {
        if (!gtk_editable_get_selection_bounds (GTK_EDITABLE (widget), &start, &end))
            start = end = gtk_editable_get_position (GTK_EDITABLE (widget));
        fill_selection (out, start, end, gtk_entry_get_text_length (GTK_ENTRY (widget)), entry_text, widget);
    } else if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter a, b;
        gtk_text_buffer_get_selection_bounds (buffer, &a, &b);
        fill_selection (out, gtk_text_iter_get_offset (&a), gtk_text_iter_get_offset (&b),
                        gtk_text_buffer_get_char_count (buffer), view_text, widget);
    } else if (GTK_IS_LABEL (widget)) {
        if (gtk_label_get_selection_bounds (GTK_LABEL (widget), &start, &end))
            fill_selection (out, start, end, g_utf8_strlen (gtk_label_get_text (GTK_LABEL (widget)), -1), label_text,
                            widget);
    }
}

static MbField *
field_of (GtkWidget *widget)
{
    return g_object_get_data (G_OBJECT (widget), FIELD_KEY);
}

/* The field a command chosen in a menu is changing now: its edits are
 * recorded though the focus may not be back from the menu yet. */
static MbField *acting;

/* Replaces the selection with `text` and selects what was put in, as one
 * user action (one step of the widget's own undo, or of MenuBus's). */
static void
replace_selection (GtkWidget *widget, const gchar *text, const gchar *undo_name)
{
    MbField *field = field_of (widget);
    if (field)
        mb_field_begin_action (field, undo_name && *undo_name ? undo_name : "Replace");
    acting = field;
    glong length = g_utf8_strlen (text, -1);
    if (GTK_IS_ENTRY (widget)) {
        GtkEditable *editable = GTK_EDITABLE (widget);
        gint start, end;
        if (!gtk_editable_get_selection_bounds (editable, &start, &end))
            start = end = gtk_editable_get_position (editable);
        gtk_editable_delete_text (editable, start, end);
        gint at = start;
        gtk_editable_insert_text (editable, text, -1, &at);
        gtk_editable_select_region (editable, start, start + (gint) length);
    } else if (GTK_IS_TEXT_VIEW (widget)) {
        mb_text_buffer_replace_selection (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget)), text);
    }
    acting = NULL;
    if (field)
        mb_field_end_action (field);
}

/* A standard command chosen in a menu, done by the widget's own means. */
static void
field_perform (gpointer data, const gchar *command, const gchar *text, const gchar *undo_name)
{
    GtkWidget *widget = data;
    gboolean editable = (field_flags (widget) & MB_FIELD_EDITABLE) != 0;
    if (g_strcmp0 (command, "copy") == 0)
        g_signal_emit_by_name (widget, "copy-clipboard");
    else if (g_strcmp0 (command, "cut") == 0 && editable) {
        acting = field_of (widget);
        g_signal_emit_by_name (widget, "cut-clipboard");
        acting = NULL;
    }
    else if (g_strcmp0 (command, "paste") == 0 && editable)
        g_signal_emit_by_name (widget, "paste-clipboard");
    else if (g_strcmp0 (command, "replace-selection") == 0 && editable && text)
        replace_selection (widget, text, undo_name);
    else if (g_strcmp0 (command, "delete") == 0 && editable) {
        MbField *field = field_of (widget);
        if (field)
            mb_field_begin_action (field, "Delete");
        acting = field;
        if (GTK_IS_ENTRY (widget))
            gtk_editable_delete_selection (GTK_EDITABLE (widget));
        else if (GTK_IS_TEXT_VIEW (widget))
            gtk_text_buffer_delete_selection (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget)), TRUE, TRUE);
        acting = NULL;
        if (field)
            mb_field_end_action (field);
    } else if (g_strcmp0 (command, "select-all") == 0) {
        if (GTK_IS_ENTRY (widget))
            gtk_editable_select_region (GTK_EDITABLE (widget), 0, -1);
        else if (GTK_IS_TEXT_VIEW (widget))
            g_signal_emit_by_name (widget, "select-all", TRUE);
        else if (GTK_IS_LABEL (widget))
            gtk_label_select_region (GTK_LABEL (widget), 0, -1);
    }
}

/* Undo and redo: MenuBus's payloads applied to the text. */
static void
field_apply (gpointer data, const MbEdit *edits, guint n)
{
    GtkWidget *widget = data;
    gint caret = -1;
    for (guint i = 0; i < n; i++) {
        const MbEdit *edit = &edits[i];
        glong length = g_utf8_strlen (edit->text, -1);
        if (GTK_IS_ENTRY (widget)) {
            GtkEditable *editable = GTK_EDITABLE (widget);
            gint total = gtk_entry_get_text_length (GTK_ENTRY (widget));
            if ((gint) edit->offset > total)
                return; /* the text is not what the step was made on */
            if (edit->insert) {
                gint at = (gint) edit->offset;
                gtk_editable_insert_text (editable, edit->text, -1, &at);
                caret = at;
            } else {
                gtk_editable_delete_text (editable, (gint) edit->offset, (gint) (edit->offset + length));
                caret = (gint) edit->offset;
            }
        } else if (GTK_IS_TEXT_VIEW (widget)) {
            GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
            if ((gint) edit->offset > gtk_text_buffer_get_char_count (buffer))
                return;
            GtkTextIter a, b;
            gtk_text_buffer_get_iter_at_offset (buffer, &a, (gint) edit->offset);
            if (edit->insert) {
                gtk_text_buffer_insert (buffer, &a, edit->text, -1);
                caret = gtk_text_iter_get_offset (&a);
            } else {
                gtk_text_buffer_get_iter_at_offset (buffer, &b, (gint) (edit->offset + length));
                gtk_text_buffer_delete (buffer, &a, &b);
                caret = (gint) edit->offset;
            }
        }
    }
    if (caret < 0)
        return;
    if (GTK_IS_ENTRY (widget)) {
        gtk_editable_set_position (GTK_EDITABLE (widget), caret);
    } else if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter at;
        gtk_text_buffer_get_iter_at_offset (buffer, &at, caret);
        gtk_text_buffer_place_cursor (buffer, &at);
    }
}

static const MbFieldOps field_ops = { field_flags, field_selection, field_perform, field_apply };

/* ---------- following a field ---------- */

static void
changed (GtkWidget *widget)
{
    MbField *field = field_of (widget);
    if (field)
        mb_field_changed (field);
}

static void
on_notify (GObject *object, GParamSpec *pspec, gpointer widget)
{
    changed (widget);
}

static void
on_mark_set (GtkTextBuffer *buffer, GtkTextIter *at, GtkTextMark *mark, gpointer widget)
{
    if (mark == gtk_text_buffer_get_insert (buffer) || mark == gtk_text_buffer_get_selection_bound (buffer))
        changed (widget);
}

/* Edits are the user's while the field has the focus (an app setting the
 * text otherwise is not an undo step), or a chosen command's. */
static gboolean
records (GtkWidget *widget, MbField *field)
{
    return field && !mb_field_is_applying (field) && (field_flags (widget) & MB_FIELD_MENUBUS_UNDO) &&
           (gtk_widget_has_focus (widget) || field == acting);
}

static void
on_entry_insert (GtkEditable *editable, const gchar *text, gint length, gint *position, gpointer data)
{
    MbField *field = field_of (GTK_WIDGET (editable));
    if (!records (GTK_WIDGET (editable), field))
        return;
    g_autofree gchar *copy = length < 0 ? g_strdup (text) : g_strndup (text, length);
    MbEdit edit = { TRUE, (guint) *position, copy };
    mb_field_record (field, &edit);
}

static void
on_entry_delete (GtkEditable *editable, gint start, gint end, gpointer data)
{
    MbField *field = field_of (GTK_WIDGET (editable));
    if (!records (GTK_WIDGET (editable), field))
        return;
    if (end < 0)
        end = gtk_entry_get_text_length (GTK_ENTRY (editable));
    g_autofree gchar *text = gtk_editable_get_chars (editable, start, end);
    MbEdit edit = { FALSE, (guint) start, text };
    mb_field_record (field, &edit);
}

static void
on_buffer_insert (GtkTextBuffer *buffer, GtkTextIter *at, const gchar *text, gint length, gpointer widget)
{
    MbField *field = field_of (widget);
    if (!records (widget, field))
        return;
    g_autofree gchar *copy = g_strndup (text, length);
    MbEdit edit = { TRUE, (guint) gtk_text_iter_get_offset (at), copy };
    mb_field_record (field, &edit);
}

static void
on_buffer_delete (GtkTextBuffer *buffer, GtkTextIter *start, GtkTextIter *end, gpointer widget)
{
    MbField *field = field_of (widget);
    if (!records (widget, field))
        return;
    g_autofree gchar *text = gtk_text_buffer_get_text (buffer, start, end, TRUE);
    MbEdit edit = { FALSE, (guint) MIN (gtk_text_iter_get_offset (start), gtk_text_iter_get_offset (end)), text };
    mb_field_record (field, &edit);
}

/* Cut from the keyboard is one step named "Cut". */
static void
on_cut_before (GtkWidget *widget, gpointer data)
{
    MbField *field = field_of (widget);
    if (field)
        mb_field_begin_action (field, "Cut");
}

static void
on_cut_after (GtkWidget *widget, gpointer data)
{
    MbField *field = field_of (widget);
    if (field)
        mb_field_end_action (field);
}

/* Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y in a field with MenuBus undo. Taken
 * at the window, before the app's own accelerators. */
static gboolean
on_window_key (GtkWidget *window, GdkEventKey *event, gpointer data)
{
    GdkModifierType mods = event->state & gtk_accelerator_get_default_mod_mask ();
    if (!(mods & GDK_CONTROL_MASK))
        return FALSE;
    GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));
    MbField *field = focus ? field_of (focus) : NULL;
    if (!field || !(field_flags (focus) & MB_FIELD_MENUBUS_UNDO))
        return FALSE;
    guint key = gdk_keyval_to_lower (event->keyval);
    gboolean shift = (mods & GDK_SHIFT_MASK) != 0;
    if (key == GDK_KEY_z && !shift && mods == GDK_CONTROL_MASK) {
        mb_field_undo (field);
        return TRUE;
    }
    if ((key == GDK_KEY_z && shift && mods == (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) ||
        (key == GDK_KEY_y && mods == GDK_CONTROL_MASK)) {
        mb_field_redo (field);
        return TRUE;
    }
    return FALSE;
}

static void
forget_field (GtkWidget *widget, gpointer data)
{
    MbField *field = field_of (widget);
    if (!field)
        return;
    g_object_set_data (G_OBJECT (widget), FIELD_KEY, NULL);
    mb_field_free (field);
}

static MbField *
adopt (GtkWidget *widget)
{
    MbField *field = field_of (widget);
    if (field)
        return field;
    field = mb_field_new (widget, &field_ops);
    g_object_set_data (G_OBJECT (widget), FIELD_KEY, field);
    g_signal_connect (widget, "destroy", G_CALLBACK (forget_field), NULL);
    if (GTK_IS_ENTRY (widget)) {
        g_signal_connect (widget, "changed", G_CALLBACK (changed), NULL);
        g_signal_connect (widget, "notify::cursor-position", G_CALLBACK (on_notify), widget);
        g_signal_connect (widget, "notify::selection-bound", G_CALLBACK (on_notify), widget);
        g_signal_connect (widget, "notify::editable", G_CALLBACK (on_notify), widget);
        g_signal_connect (widget, "insert-text", G_CALLBACK (on_entry_insert), NULL);
        g_signal_connect (widget, "delete-text", G_CALLBACK (on_entry_delete), NULL);
    } else if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        g_signal_connect_object (buffer, "changed", G_CALLBACK (changed), widget, G_CONNECT_SWAPPED);
        g_signal_connect_object (buffer, "mark-set", G_CALLBACK (on_mark_set), widget, 0);
        g_signal_connect_object (buffer, "insert-text", G_CALLBACK (on_buffer_insert), widget, 0);
        g_signal_connect_object (buffer, "delete-range", G_CALLBACK (on_buffer_delete), widget, 0);
        g_signal_connect (widget, "notify::editable", G_CALLBACK (on_notify), widget);
    } else {
        g_signal_connect (widget, "notify::cursor-position", G_CALLBACK (on_notify), widget);
        g_signal_connect (widget, "notify::selection-bound", G_CALLBACK (on_notify), widget);
    }
    if (GTK_IS_ENTRY (widget) || GTK_IS_TEXT_VIEW (widget)) {
        g_signal_connect (widget, "cut-clipboard", G_CALLBACK (on_cut_before), NULL);
        g_signal_connect_after (widget, "cut-clipboard", G_CALLBACK (on_cut_after), NULL);
    }
    GtkWidget *toplevel = gtk_widget_get_toplevel (widget);
    if (GTK_IS_WINDOW (toplevel) && !g_object_get_data (G_OBJECT (toplevel), TOPLEVEL_KEY)) {
        g_object_set_data (G_OBJECT (toplevel), TOPLEVEL_KEY, GINT_TO_POINTER (1));
        g_signal_connect (toplevel, "key-press-event", G_CALLBACK (on_window_key), NULL);
    }
    return field;
}

/* ---------- the clipboard ---------- */

static void
targets_received (GtkClipboard *clipboard, GdkAtom *atoms, gint n, gpointer data)
{
    g_autoptr (GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
    if (atoms && gtk_targets_include_text (atoms, n))
        g_ptr_array_add (types, g_strdup ("text/plain"));
    if (atoms && gtk_targets_include_image (atoms, n, FALSE))
        g_ptr_array_add (types, g_strdup ("image/png"));
    if (atoms && gtk_targets_include_uri (atoms, n))
        g_ptr_array_add (types, g_strdup ("text/uri-list"));
    for (gint i = 0; atoms && i < n; i++) {
        g_autofree gchar *name = gdk_atom_name (atoms[i]);
        /* MIME types as offered, beyond those three. */
        if (name && strchr (name, '/') && !g_str_has_prefix (name, "text/plain") && strcmp (name, "image/png") != 0 &&
            strcmp (name, "text/uri-list") != 0 && types->len < 32)
            g_ptr_array_add (types, g_strdup (name));
    }
    g_ptr_array_add (types, NULL);
    mb_shim_set_clipboard_types ((const gchar *const *) types->pdata);
}

static void
clipboard_changed (GtkClipboard *clipboard, GdkEvent *event, gpointer data)
{
    gtk_clipboard_request_targets (clipboard, targets_received, NULL);
}

static void
follow_clipboard (void)
{
    static gboolean following;
    if (following)
        return;
    GtkClipboard *clipboard = gtk_clipboard_get (GDK_SELECTION_CLIPBOARD);
    if (!clipboard)
        return;
    following = TRUE;
    g_signal_connect (clipboard, "owner-change", G_CALLBACK (clipboard_changed), NULL);
    clipboard_changed (clipboard, NULL, NULL);
}

/* ---------- menus ---------- */

typedef struct {
    GtkMenu *menu;
    GtkWidget *widget;
    MbMenu *presented;
    GPtrArray *ours;     /* the items MenuBus put in, in order */
    GPtrArray *retired;  /* items taken out, kept until the popup goes (GTK may still activate one) */
    GPtrArray *replaced; /* GTK's own standard items, hidden while MenuBus's show */
    GHashTable *shown;   /* standard commands the app's own items do, left out of MenuBus's */
    GHashTable *titles;  /* the app's items' titles, folded: MenuBus's of the same title are left out */
    GHashTable *accels;  /* and their shortcuts: MenuBus's with the same shortcut too */
    GtkWidget *anchor;   /* MenuBus's items go before it; NULL: at the end */
    gboolean closing;
} Popup;

/* The standard command an item of the menu does, when it can be told:
 * GTK marks its own clipboard items (and GtkSourceView its undo and redo)
 * with "gtk-signal"; Delete and Select All by GTK's own titles; an app's
 * item by its action name (`win.edit.copy`). `gtk_own` says GTK made it. */
static const gchar *
item_command (GtkWidget *item, gboolean *gtk_own)
{
    *gtk_own = FALSE;
    const gchar *signal = g_object_get_data (G_OBJECT (item), "gtk-signal");
    if (signal) {
        *gtk_own = TRUE;
        if (strcmp (signal, "cut-clipboard") == 0)
            return "cut";
        if (strcmp (signal, "copy-clipboard") == 0)
            return "copy";
        if (strcmp (signal, "paste-clipboard") == 0)
            return "paste";
        *gtk_own = FALSE; /* GtkSourceView's undo and redo stay */
        if (strcmp (signal, "undo") == 0 || strcmp (signal, "redo") == 0)
            return signal;
        return NULL;
    }
    const gchar *action = GTK_IS_ACTIONABLE (item) ? gtk_actionable_get_action_name (GTK_ACTIONABLE (item)) : NULL;
    const gchar *label = GTK_IS_MENU_ITEM (item) ? gtk_menu_item_get_label (GTK_MENU_ITEM (item)) : NULL;
    if (label && !action) {
        if (strcmp (label, g_dgettext ("gtk30", "_Delete")) == 0) {
            *gtk_own = TRUE;
            return "delete";
        }
        if (strcmp (label, g_dgettext ("gtk30", "Select _All")) == 0) {
            *gtk_own = TRUE;
            return "select-all";
        }
    }
    if (action) {
        const gchar *last = strrchr (action, '.');
        last = last ? last + 1 : action;
        static const gchar *const commands[] = { "undo", "redo", "cut", "copy", "paste", "delete", "select-all", NULL };
        for (const gchar *const *c = commands; *c; c++)
            if (strcmp (last, *c) == 0)
                return *c;
        if (strcmp (last, "delete-selection") == 0)
            return "delete";
    }
    return NULL;
}

static void
item_chosen (GtkMenuItem *item, Popup *popup)
{
    const gchar *id = g_object_get_data (G_OBJECT (item), "menubus-id");
    if (id && popup->presented)
        mb_menu_activate (popup->presented, id, gtk_get_current_event_time ());
}

static gboolean
has_attribute (GVariant *props, const gchar *name)
{
    g_autofree const gchar **attributes = NULL;
    if (!g_variant_lookup (props, "attributes", "^a&s", &attributes))
        return FALSE;
    return g_strv_contains (attributes, name);
}

static gboolean
has_option (GVariant *props, const gchar *name)
{
    g_autofree const gchar **options = NULL;
    if (!g_variant_lookup (props, "options", "^a&s", &options))
        return FALSE;
    return g_strv_contains (options, name);
}

typedef struct {
    const gchar *id;
    const gchar *parent;
    GVariant *props;
} Element;

static GtkWidget *
make_item (Popup *popup, const Element *element, gboolean radio, GSList **group)
{
    const gchar *title = "", *icon = NULL, *shortcut = NULL, *state = NULL, *subtitle = NULL;
    g_variant_lookup (element->props, "title", "&s", &title);
    g_variant_lookup (element->props, "icon", "&s", &icon);
    g_variant_lookup (element->props, "shortcut", "&s", &shortcut);
    g_variant_lookup (element->props, "subtitle", "&s", &subtitle);
    const gchar *command = NULL;
    g_variant_lookup (element->props, "command", "&s", &command);
    /* Bold, Italic and Underline keep their check box while off. */
    gboolean checkable = g_variant_lookup (element->props, "state", "&s", &state)
        || g_strcmp0 (command, "bold") == 0 || g_strcmp0 (command, "italic") == 0
        || g_strcmp0 (command, "underline") == 0;
    GtkWidget *item;
    if (radio) {
        item = gtk_radio_menu_item_new (*group);
        *group = gtk_radio_menu_item_get_group (GTK_RADIO_MENU_ITEM (item));
    } else if (checkable) {
        item = gtk_check_menu_item_new ();
    } else {
        item = gtk_menu_item_new ();
    }
    if (radio || checkable) {
        gtk_check_menu_item_set_active (GTK_CHECK_MENU_ITEM (item), g_strcmp0 (state, "on") == 0);
        gtk_check_menu_item_set_inconsistent (GTK_CHECK_MENU_ITEM (item), g_strcmp0 (state, "mixed") == 0);
    }
    /* The title with its accelerator, and the icon before it where the
     * desktop's GTK settings show images in menus (gtk-menu-images, as
     * GtkImageMenuItem does; Xfce and MATE turn it on, GNOME leaves it
     * off). Off, the items look like the app's own, and the menu opens
     * sooner: loading the icons is most of the time GTK takes for them. */
    gboolean images = FALSE;
    g_object_get (gtk_widget_get_settings (GTK_WIDGET (popup->menu)), "gtk-menu-images", &images, NULL);
    GtkWidget *label = gtk_accel_label_new (title);
    gtk_label_set_xalign (GTK_LABEL (label), 0.0);
    gtk_accel_label_set_accel_widget (GTK_ACCEL_LABEL (label), item);
    guint key = 0;
    GdkModifierType mods = 0;
    if (shortcut)
        gtk_accelerator_parse (shortcut, &key, &mods);
    if (key)
        gtk_accel_label_set_accel (GTK_ACCEL_LABEL (label), key, mods);
    if (images && icon && *icon && !radio && !checkable) {
        GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
        gtk_box_pack_start (GTK_BOX (box), gtk_image_new_from_icon_name (icon, GTK_ICON_SIZE_MENU), FALSE, FALSE, 0);
        gtk_box_pack_end (GTK_BOX (box), label, TRUE, TRUE, 0);
        gtk_container_add (GTK_CONTAINER (item), box);
        /* The item's accessible name comes from a label child only. */
        atk_object_set_name (gtk_widget_get_accessible (item), title);
    } else {
        /* As GTK builds an item of its own: fewer widgets to style. */
        gtk_container_add (GTK_CONTAINER (item), label);
    }
    if (subtitle && *subtitle)
        gtk_widget_set_tooltip_text (item, subtitle);
    if (has_attribute (element->props, "disabled"))
        gtk_widget_set_sensitive (item, FALSE);
    if (has_attribute (element->props, "destructive")) {
        /* Themes colour it: GTK's own class, and MenuBus's. */
        gtk_style_context_add_class (gtk_widget_get_style_context (item), "destructive-action");
        gtk_style_context_add_class (gtk_widget_get_style_context (item), "menubus-destructive");
    }
    g_object_set_data_full (G_OBJECT (item), "menubus-id", g_strdup (element->id), g_free);
    g_signal_connect (item, "activate", G_CALLBACK (item_chosen), popup);
    gtk_widget_show_all (item);
    return item;
}

/* A title as shown (no mnemonic underline), folded for comparison. */
static gchar *
folded_title (const gchar *title)
{
    g_autofree gchar *plain = g_strstrip (g_strdup (title));
    return g_utf8_casefold (plain, -1);
}

static guint
accel_hash (guint key, GdkModifierType mods)
{
    return (gdk_keyval_to_lower (key) << 8) ^ (mods & gtk_accelerator_get_default_mod_mask ());
}

/* The label an item shows its title in (a GtkAccelLabel in GTK's and
 * GMenuModel's items, maybe inside a box). */
static GtkAccelLabel *
find_label (GtkWidget *widget)
{
    if (GTK_IS_LABEL (widget))
        return (GtkAccelLabel *) widget;
    if (!GTK_IS_CONTAINER (widget))
        return NULL;
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (widget));
    for (GList *l = children; l; l = l->next) {
        GtkAccelLabel *found = find_label (l->data);
        if (found)
            return found;
    }
    return NULL;
}

static gboolean
left_out (Popup *popup, const Element *element)
{
    const gchar *command = NULL, *title = NULL;
    if (has_attribute (element->props, "hidden"))
        return TRUE;
    if (g_variant_lookup (element->props, "command", "&s", &command) && g_hash_table_contains (popup->shown, command))
        return TRUE;
    const gchar *shortcut = NULL;
    if (g_variant_lookup (element->props, "shortcut", "&s", &shortcut)) {
        guint key = 0;
        GdkModifierType mods = 0;
        gtk_accelerator_parse (shortcut, &key, &mods);
        if (key && g_hash_table_contains (popup->accels, GUINT_TO_POINTER (accel_hash (key, mods))))
            return TRUE;
    }
    if (!g_variant_lookup (element->props, "title", "&s", &title))
        return FALSE;
    g_autofree gchar *folded = folded_title (title);
    return g_hash_table_contains (popup->titles, folded);
}

/* Appends the children of `parent` to `out`: sections between separators
 * (`need_separator` says one must come before the next item), submenus as
 * items with a menu of their own. */
static void
build (Popup *popup, GArray *elements, const gchar *parent, GPtrArray *out, gboolean *need_separator,
       gboolean radio)
{
    GSList *group = NULL;
    for (guint i = 0; i < elements->len; i++) {
        const Element *element = &g_array_index (elements, Element, i);
        if (strcmp (element->parent, parent) != 0 || left_out (popup, element))
            continue;
        const gchar *type = "action";
        g_variant_lookup (element->props, "type", "&s", &type);
        if (strcmp (type, "menu") == 0 && has_option (element->props, "inline")) {
            GPtrArray *section = g_ptr_array_new ();
            gboolean inner = FALSE;
            build (popup, elements, element->id, section, &inner, has_option (element->props, "single-selection"));
            if (section->len > 0) {
                if (out->len > 0)
                    *need_separator = TRUE;
                if (*need_separator) {
                    GtkWidget *separator = gtk_separator_menu_item_new ();
                    gtk_widget_show (separator);
                    g_ptr_array_add (out, separator);
                }
                for (guint k = 0; k < section->len; k++)
                    g_ptr_array_add (out, section->pdata[k]);
                *need_separator = TRUE;
            }
            g_ptr_array_unref (section);
            continue;
        }
        GtkWidget *item;
        if (strcmp (type, "menu") == 0) {
            GPtrArray *children = g_ptr_array_new ();
            gboolean inner = FALSE;
            build (popup, elements, element->id, children, &inner, has_option (element->props, "single-selection"));
            if (children->len == 0) {
                g_ptr_array_unref (children);
                continue; /* an empty submenu is not drawn */
            }
            item = make_item (popup, element, FALSE, &group);
            GtkWidget *submenu = gtk_menu_new ();
            for (guint k = 0; k < children->len; k++)
                gtk_menu_shell_append (GTK_MENU_SHELL (submenu), children->pdata[k]);
            gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
            g_ptr_array_unref (children);
        } else if (strcmp (type, "action") == 0) {
            item = make_item (popup, element, radio, &group);
        } else {
            continue;
        }
        if (*need_separator && out->len > 0) {
            GtkWidget *separator = gtk_separator_menu_item_new ();
            gtk_widget_show (separator);
            g_ptr_array_add (out, separator);
        }
        *need_separator = FALSE;
        g_ptr_array_add (out, item);
    }
}

/* Separators stand only between items: none first, last or doubled.
 * Those this hides are marked, so a later layout may show them again;
 * one the app hid itself stays hidden. */
static void
tidy_separators (GtkMenu *menu)
{
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (menu));
    GtkWidget *pending = NULL;
    gboolean item_before = FALSE;
    for (GList *l = children; l; l = l->next) {
        GtkWidget *child = l->data;
        if (GTK_IS_SEPARATOR_MENU_ITEM (child)) {
            if (!gtk_widget_get_visible (child) && !g_object_get_data (G_OBJECT (child), "menubus-tidied"))
                continue;
            gtk_widget_hide (child);
            g_object_set_data (G_OBJECT (child), "menubus-tidied", GINT_TO_POINTER (1));
            if (item_before && !pending)
                pending = child;
            continue;
        }
        if (!gtk_widget_get_visible (child))
            continue;
        if (pending) {
            gtk_widget_show (pending);
            g_object_set_data (G_OBJECT (pending), "menubus-tidied", NULL);
            pending = NULL;
        }
        item_before = TRUE;
    }
}

static void
remove_ours (Popup *popup)
{
    for (guint i = 0; i < popup->ours->len; i++) {
        GtkWidget *item = popup->ours->pdata[i];
        GtkWidget *parent = gtk_widget_get_parent (item);
        if (parent)
            gtk_container_remove (GTK_CONTAINER (parent), item);
        g_ptr_array_add (popup->retired, item); /* the reference show_items took */
    }
    g_ptr_array_set_size (popup->ours, 0);
}

static void
show_items (Popup *popup, GVariant *items)
{
    if (popup->closing)
        return;
    remove_ours (popup);
    GtkMenuShell *shell = GTK_MENU_SHELL (popup->menu);
    if (!items) {
        /* menubusd's menu ended: GTK's own items come back. */
        for (guint i = 0; i < popup->replaced->len; i++)
            gtk_widget_show (popup->replaced->pdata[i]);
        tidy_separators (popup->menu);
        return;
    }
    g_autoptr (GArray) elements = g_array_new (FALSE, FALSE, sizeof (Element));
    GVariantIter iter;
    g_variant_iter_init (&iter, items);
    Element element;
    while (g_variant_iter_next (&iter, "(&s&s@a{sv})", &element.id, &element.parent, &element.props))
        g_array_append_val (elements, element);
    GPtrArray *built = g_ptr_array_new ();
    gboolean need_separator = FALSE;
    build (popup, elements, "", built, &need_separator, FALSE);
    for (guint i = 0; i < elements->len; i++)
        g_variant_unref (g_array_index (elements, Element, i).props);
    if (built->len == 0) {
        g_ptr_array_unref (built);
        return;
    }
    for (guint i = 0; i < popup->replaced->len; i++)
        gtk_widget_hide (popup->replaced->pdata[i]);
    /* A separator between MenuBus's items and the app's. */
    GtkWidget *separator = gtk_separator_menu_item_new ();
    gtk_widget_show (separator);
    gint position = -1;
    if (popup->anchor) {
        g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (popup->menu));
        position = g_list_index (children, popup->anchor);
    }
    if (position < 0) {
        g_ptr_array_insert (built, 0, separator);
    } else {
        g_ptr_array_add (built, separator);
    }
    for (guint i = 0; i < built->len; i++) {
        GtkWidget *item = built->pdata[i];
        g_ptr_array_add (popup->ours, g_object_ref (item));
        if (position < 0)
            gtk_menu_shell_append (shell, item);
        else
            gtk_menu_shell_insert (shell, item, position++);
    }
    g_ptr_array_unref (built);
    tidy_separators (popup->menu);
    if (gtk_widget_get_mapped (GTK_WIDGET (popup->menu)))
        gtk_menu_reposition (popup->menu);
}

static void
presented_changed (MbMenu *menu, GVariant *items, gpointer data)
{
    show_items (data, items);
}

static void
popup_free (Popup *popup)
{
    mb_menu_close (popup->presented);
    for (guint i = 0; i < popup->ours->len; i++)
        g_object_unref (popup->ours->pdata[i]);
    g_ptr_array_unref (popup->ours);
    g_ptr_array_unref (popup->retired);
    g_ptr_array_unref (popup->replaced);
    g_hash_table_unref (popup->shown);
    g_hash_table_unref (popup->titles);
    g_hash_table_unref (popup->accels);
    g_clear_object (&popup->widget);
    g_free (popup);
}

static gboolean
popup_finish (gpointer data)
{
    popup_free (data);
    return G_SOURCE_REMOVE;
}

/* The menu closes. MenuBus's items leave it now (an app that moves its
 * own items back, as mousepad does, finds only its own), but the choice
 * of one, which GTK makes just after this, still reaches menubusd: the
 * presentation ends when the loop is idle again. */
static void
menu_deactivated (GtkMenuShell *shell, Popup *popup)
{
    if (popup->closing)
        return;
    g_signal_handlers_disconnect_by_data (shell, popup);
    remove_ours (popup);
    for (guint i = 0; i < popup->replaced->len; i++)
        gtk_widget_show (popup->replaced->pdata[i]);
    popup->closing = TRUE;
    g_object_set_data (G_OBJECT (shell), POPUP_KEY, NULL);
    g_idle_add (popup_finish, popup);
}

/* The menu is about to show, with the app's items in it: MenuBus's go in. */
static void
menu_shown (GtkWidget *menu, Popup *popup)
{
    if (popup->presented || popup->closing)
        return;
    MbField *field = field_of (popup->widget);
    if (!field)
        return;
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (menu));
    for (GList *l = children; l; l = l->next) {
        gboolean gtk_own = FALSE;
        const gchar *command = item_command (l->data, &gtk_own);
        if (!gtk_widget_get_visible (l->data))
            continue;
        GtkAccelLabel *label = find_label (l->data);
        if (label && !gtk_own) {
            g_hash_table_add (popup->titles, folded_title (gtk_label_get_text (GTK_LABEL (label))));
            guint key = 0;
            GdkModifierType mods = 0;
            if (GTK_IS_ACCEL_LABEL (label))
                gtk_accel_label_get_accel (label, &key, &mods);
            if (key)
                g_hash_table_add (popup->accels, GUINT_TO_POINTER (accel_hash (key, mods)));
        }
        if (!command)
            continue;
        if (gtk_own) {
            g_ptr_array_add (popup->replaced, l->data);
            if (!popup->anchor)
                popup->anchor = l->data;
        } else {
            g_hash_table_add (popup->shown, (gpointer) command);
        }
    }
    GVariant *items = NULL;
#ifdef MENUBUS_BENCH_REPLAY
    /* bench/desktop/gtk-menu.sh's floor, never in a build that is installed: the
     * first menu's items shown again in every later menu with no call to
     * menubusd, so what GTK takes to draw them is measured alone. */
    static GVariant *replayed;
    if (replayed)
        items = g_variant_ref (replayed);
    else if ((popup->presented = mb_menu_present (field, presented_changed, popup, &items)) && items)
        replayed = g_variant_ref (items);
#else
    popup->presented = mb_menu_present (field, presented_changed, popup, &items);
#endif
    if (items) {
        show_items (popup, items);
        g_variant_unref (items);
    }
}

static gboolean
populate_popup_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    GtkWidget *menu = g_value_get_object (&params[1]);
    if (!GTK_IS_MENU (menu) || !GTK_IS_WIDGET (widget) || !takes_part (widget) ||
        g_object_get_data (G_OBJECT (menu), POPUP_KEY))
        return TRUE;
    MbField *field = adopt (widget);
    if (!gtk_widget_has_focus (widget))
        mb_field_focused (field);
    Popup *popup = g_new0 (Popup, 1);
    popup->menu = GTK_MENU (menu);
    popup->widget = g_object_ref (widget);
    popup->ours = g_ptr_array_new ();
    popup->retired = g_ptr_array_new_with_free_func (g_object_unref);
    popup->replaced = g_ptr_array_new ();
    popup->shown = g_hash_table_new (g_str_hash, g_str_equal);
    popup->titles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    popup->accels = g_hash_table_new (NULL, NULL);
    g_object_set_data (G_OBJECT (menu), POPUP_KEY, popup);
    /* Before the app's own handlers (this hook runs first): mousepad
     * moves the items of its menu in at "show" and out at "deactivate". */
    g_signal_connect (menu, "deactivate", G_CALLBACK (menu_deactivated), popup);
    g_signal_connect_after (menu, "show", G_CALLBACK (menu_shown), popup);
    return TRUE;
}

static gboolean
focus_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    if (!GTK_IS_WIDGET (widget) || !takes_part (widget))
        return TRUE;
    follow_clipboard ();
    mb_field_focused (adopt (widget));
    return TRUE;
}

G_MODULE_EXPORT void gtk_module_init (gint *argc, gchar ***argv);

G_MODULE_EXPORT void
gtk_module_init (gint *argc, gchar ***argv)
{
    static gboolean done;
    if (done || gtk_check_version (3, 22, 0) != NULL)
        return;
    done = TRUE;
    if (!mb_shim_enabled ("gtk3"))
        return;
    /* Signals exist once their class does: at gtk_init, not yet. */
    g_type_class_ref (GTK_TYPE_WIDGET);
    g_signal_add_emission_hook (g_signal_lookup ("focus-in-event", GTK_TYPE_WIDGET), 0, focus_hook, NULL, NULL);
    GType popups[] = { GTK_TYPE_ENTRY, GTK_TYPE_TEXT_VIEW, GTK_TYPE_LABEL };
    for (guint i = 0; i < G_N_ELEMENTS (popups); i++) {
        g_type_class_ref (popups[i]);
        g_signal_add_emission_hook (g_signal_lookup ("populate-popup", popups[i]), 0, populate_popup_hook, NULL, NULL);
    }
}

/* GTK loads the module and never unloads it: its hooks stay. */
G_MODULE_EXPORT const gchar *g_module_check_init (GModule *module);

G_MODULE_EXPORT const gchar *
g_module_check_init (GModule *module)
{
    g_module_make_resident (module);
    return NULL;
}
