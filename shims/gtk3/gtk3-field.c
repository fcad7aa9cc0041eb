/* Which widgets take part, what a field is and does for the core
 * (flags, selection, commands, undo edits), and following its changes. */
#include <gtk/gtk.h>
#include <string.h>

#include "gtk3-module.h"
#include "menubus-text-buffer.h"

/* ---------- which widgets take part ---------- */

static gboolean
has_own_undo (GtkTextView *view)
{
    /* GtkSourceBuffer (GtkSourceView, gedit's and mousepad's editors)
     * keeps its own undo; the module leaves it alone. */
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
    return buffer && g_object_class_find_property (G_OBJECT_GET_CLASS (buffer), "can-undo") != NULL;
}

/* Whether GTK's own Cut, Copy and Paste are always in the widget's
 * context menu: they are in every GtkEntry's, selectable GtkLabel's and
 * plain GtkTextView's; an editor built on GtkSourceView may make its own. */
gboolean
gtk3_builds_own_items (GtkWidget *widget)
{
    return GTK_IS_ENTRY (widget) || GTK_IS_LABEL (widget) ||
           (GTK_IS_TEXT_VIEW (widget) && !has_own_undo (GTK_TEXT_VIEW (widget)));
}

gboolean
gtk3_takes_part (GtkWidget *widget)
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

MbField *
gtk3_field_of (GtkWidget *widget)
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
    MbField *field = gtk3_field_of (widget);
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
        acting = gtk3_field_of (widget);
        g_signal_emit_by_name (widget, "cut-clipboard");
        acting = NULL;
    }
    else if (g_strcmp0 (command, "paste") == 0 && editable)
        g_signal_emit_by_name (widget, "paste-clipboard");
    else if (g_strcmp0 (command, "replace-selection") == 0 && editable && text)
        replace_selection (widget, text, undo_name);
    else if (g_strcmp0 (command, "delete") == 0 && editable) {
        MbField *field = gtk3_field_of (widget);
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

/* Asked from outside (ShowMenuForFocus): the widget's menu at its caret,
 * as the Menu key shows it; MenuBus's items join it as for any menu. */
static gboolean
field_show_menu (gpointer data, guint32 timestamp)
{
    GtkWidget *widget = data;
    if (!gtk_widget_get_mapped (widget))
        return FALSE;
    gboolean shown = FALSE;
    g_signal_emit_by_name (widget, "popup-menu", &shown);
    return shown;
}

static const MbFieldOps field_ops = { field_flags,     field_selection, field_perform, field_apply,
                                      field_show_menu, gtk3_bar_show,   gtk3_bar_hide };

/* ---------- following a field ---------- */

static void
changed (GtkWidget *widget)
{
    MbField *field = gtk3_field_of (widget);
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
    MbField *field = gtk3_field_of (GTK_WIDGET (editable));
    if (!records (GTK_WIDGET (editable), field))
        return;
    g_autofree gchar *copy = length < 0 ? g_strdup (text) : g_strndup (text, length);
    MbEdit edit = { TRUE, (guint) *position, copy };
    mb_field_record (field, &edit);
}

static void
on_entry_delete (GtkEditable *editable, gint start, gint end, gpointer data)
{
    MbField *field = gtk3_field_of (GTK_WIDGET (editable));
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
    MbField *field = gtk3_field_of (widget);
    if (!records (widget, field))
        return;
    g_autofree gchar *copy = g_strndup (text, length);
    MbEdit edit = { TRUE, (guint) gtk_text_iter_get_offset (at), copy };
    mb_field_record (field, &edit);
}

static void
on_buffer_delete (GtkTextBuffer *buffer, GtkTextIter *start, GtkTextIter *end, gpointer widget)
{
    MbField *field = gtk3_field_of (widget);
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
    MbField *field = gtk3_field_of (widget);
    if (field)
        mb_field_begin_action (field, "Cut");
}

static void
on_cut_after (GtkWidget *widget, gpointer data)
{
    MbField *field = gtk3_field_of (widget);
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
    MbField *field = focus ? gtk3_field_of (focus) : NULL;
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

/* A key the window let pass (no accelerator of the app's, no binding of
 * the focused widget took it): a provider's shortcut, when an item of the
 * focused field's edit menu has it. */
static gboolean
on_window_key_unused (GtkWidget *window, GdkEventKey *event, gpointer data)
{
    GdkModifierType mods = event->state & gtk_accelerator_get_default_mod_mask ();
    if (event->is_modifier || !(mods & (GDK_CONTROL_MASK | GDK_MOD1_MASK | GDK_SUPER_MASK)))
        return FALSE;
    GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));
    MbField *field = focus ? gtk3_field_of (focus) : NULL;
    if (!field)
        return FALSE;
    g_autofree gchar *accelerator = gtk_accelerator_name (gdk_keyval_to_lower (event->keyval), mods);
    return mb_field_shortcut (field, accelerator, event->time);
}

static void
forget_field (GtkWidget *widget, gpointer data)
{
    MbField *field = gtk3_field_of (widget);
    if (!field)
        return;
    g_object_set_data (G_OBJECT (widget), FIELD_KEY, NULL);
    mb_field_free (field);
}

/* A new field of the core for `widget`, made with `ops`, kept as the
 * widget's data and freed when the widget goes. */
MbField *
gtk3_field_attach (GtkWidget *widget, const MbFieldOps *ops)
{
    MbField *field = mb_field_new (widget, ops);
    g_object_set_data (G_OBJECT (widget), FIELD_KEY, field);
    g_signal_connect (widget, "destroy", G_CALLBACK (forget_field), NULL);
    return field;
}

MbField *
gtk3_adopt (GtkWidget *widget)
{
    MbField *field = gtk3_field_of (widget);
    if (field)
        return field;
    field = gtk3_field_attach (widget, &field_ops);
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
        gtk3_bar_follow (widget, field_show_menu);
        g_signal_connect (widget, "cut-clipboard", G_CALLBACK (on_cut_before), NULL);
        g_signal_connect_after (widget, "cut-clipboard", G_CALLBACK (on_cut_after), NULL);
    }
    GtkWidget *toplevel = gtk_widget_get_toplevel (widget);
    if (GTK_IS_WINDOW (toplevel) && !g_object_get_data (G_OBJECT (toplevel), TOPLEVEL_KEY)) {
        g_object_set_data (G_OBJECT (toplevel), TOPLEVEL_KEY, GINT_TO_POINTER (1));
        g_signal_connect (toplevel, "key-press-event", G_CALLBACK (on_window_key), NULL);
        /* After GtkWindow's own handler, which returns TRUE for a key the
         * app's accelerators or the focused widget used: only unused keys. */
        g_signal_connect_after (toplevel, "key-press-event", G_CALLBACK (on_window_key_unused), NULL);
    }
    return field;
}

