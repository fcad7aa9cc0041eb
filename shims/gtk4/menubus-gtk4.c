/* menubus-gtk4 (menubus-gtk4.h says what and when): GTK 4's side of the
 * shim core (shims/core): which widgets, their text and selection, the
 * commands done on them, and the extra menu. */
#include "menubus-gtk4.h"

#include <string.h>

#include "menubus-policy.h"
#include "menubus-shim.h"
#include "menubus-text-buffer.h"
#include "gtk4-clipboard.h"

#define ATTACHMENT_KEY "menubus-gtk4-attachment"
#define ACTION_PREFIX "menubus" /* what the daemon's org.gtk.Menus items name */

/* What GTK 4's own text menu shows: left out of MenuBus's. */
static const gchar *const gtk_own_commands[] = { "cut", "copy", "paste", "delete", "select-all", NULL };

typedef struct {
    GtkWidget *widget;     /* the GtkText or GtkTextView (not owned: the attachment is its data) */
    MbField *field;
    GMenuModel *app_menu;  /* the app's own extra menu when attached, or NULL */
    GMenu *extra;          /* the widget's extra-menu: the app's section, then MenuBus's */
    gboolean section_shown; /* MenuBus's section is in `extra` */
    MbMenu *presented;     /* being asked for or live; NULL when none */
    GMenuModel *model;     /* GDBusMenuModel of the live presentation */
    GActionGroup *actions; /* its GDBusActionGroup, inserted as "menubus" */
    gboolean empty;        /* the last PresentMenu answered NothingToShow */
    gint asked_state;      /* selection kind and flags it was asked for (state_of) */
    guint again_id;        /* a presentation to make when the loop is idle */
    GtkEventController *focus;
    GtkTextBuffer *buffer; /* a GtkTextView's buffer as attached (the app keeps the one it set) */
} Attachment;

static GList *attachments;

static void present (Attachment *att);

/* ---------- which widgets ---------- */

/* The widget whose text, selection and menu it is: a GtkText or a
 * GtkTextView; a GtkEntry (and any editable built on GtkText) gives its
 * GtkText. NULL for anything else and for password fields. */
static GtkWidget *
text_widget (GtkWidget *widget)
{
    if (GTK_IS_TEXT_VIEW (widget))
        return widget;
    for (guint depth = 0; GTK_IS_EDITABLE (widget) && depth < 4; depth++) {
        if (GTK_IS_TEXT (widget))
            return gtk_text_get_visibility (GTK_TEXT (widget)) ? widget : NULL;
        GtkEditable *delegate = gtk_editable_get_delegate (GTK_EDITABLE (widget));
        if (!delegate || GTK_WIDGET (delegate) == widget)
            return NULL;
        widget = GTK_WIDGET (delegate);
    }
    return NULL;
}

static Attachment *
attachment_of (GtkWidget *widget)
{
    return widget ? g_object_get_data (G_OBJECT (widget), ATTACHMENT_KEY) : NULL;
}

/* ---------- what a field is and does (MbFieldOps) ---------- */

static MbFieldFlags
field_flags (gpointer data)
{
    GtkWidget *widget = data;
    MbFieldFlags flags = 0;
    if (GTK_IS_TEXT_VIEW (widget)) {
        if (gtk_text_view_get_editable (GTK_TEXT_VIEW (widget)))
            flags |= MB_FIELD_EDITABLE;
        if (gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget))) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    } else if (GTK_IS_TEXT (widget)) {
        if (gtk_editable_get_editable (GTK_EDITABLE (widget)))
            flags |= MB_FIELD_EDITABLE;
        if (gtk_text_get_text_length (GTK_TEXT (widget)) > 0)
            flags |= MB_FIELD_HAS_CONTENT;
    }
    /* Never MB_FIELD_MENUBUS_UNDO: GTK 4's text widgets have their own undo. */
    return flags;
}

static void
field_selection (gpointer data, MbSelection *out)
{
    GtkWidget *widget = data;
    gint start = 0, end = 0, total = 0;
    out->kind = MB_SELECTION_NONE;
    if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter a, b;
        gtk_text_buffer_get_selection_bounds (buffer, &a, &b);
        start = gtk_text_iter_get_offset (&a);
        end = gtk_text_iter_get_offset (&b);
        total = gtk_text_buffer_get_char_count (buffer);
    } else if (GTK_IS_TEXT (widget)) {
        if (!gtk_editable_get_selection_bounds (GTK_EDITABLE (widget), &start, &end))
            start = end = gtk_editable_get_position (GTK_EDITABLE (widget));
        total = gtk_text_get_text_length (GTK_TEXT (widget));
    } else {
        return;
    }
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
    /* menubusd takes at most 65536 bytes: longer selections go without text. */
    if (out->length > 65536)
        return;
    if (GTK_IS_TEXT_VIEW (widget)) {
        GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
        GtkTextIter a, b;
        gtk_text_buffer_get_iter_at_offset (buffer, &a, start);
        gtk_text_buffer_get_iter_at_offset (buffer, &b, end);
        out->text = gtk_text_buffer_get_text (buffer, &a, &b, FALSE);
    } else {
        out->text = gtk_editable_get_chars (GTK_EDITABLE (widget), start, end);
    }
}

/* Replaces the selection with `text` and selects what was put in. */
static void
replace_selection (GtkWidget *widget, const gchar *text)
{
    glong length = g_utf8_strlen (text, -1);
    if (GTK_IS_TEXT_VIEW (widget)) {
        /* One user action: one step of GTK's own undo. */
        mb_text_buffer_replace_selection (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget)), text);
    } else if (GTK_IS_TEXT (widget)) {
        GtkEditable *editable = GTK_EDITABLE (widget);
        gint start, end;
        if (!gtk_editable_get_selection_bounds (editable, &start, &end))
            start = end = gtk_editable_get_position (editable);
        gtk_editable_delete_text (editable, start, end);
        gint at = start;
        gtk_editable_insert_text (editable, text, -1, &at);
        gtk_editable_select_region (editable, start, start + (gint) length);
    }
}

/* A command chosen in a menu, done by the widget's own means. */
static void
field_perform (gpointer data, const gchar *command, const gchar *text, const gchar *undo_name)
{
    GtkWidget *widget = data;
    gboolean editable = (field_flags (widget) & MB_FIELD_EDITABLE) != 0;
    if (g_strcmp0 (command, "copy") == 0)
        g_signal_emit_by_name (widget, "copy-clipboard");
    else if (g_strcmp0 (command, "cut") == 0 && editable)
        g_signal_emit_by_name (widget, "cut-clipboard");
    else if (g_strcmp0 (command, "paste") == 0 && editable)
        g_signal_emit_by_name (widget, "paste-clipboard");
    else if (g_strcmp0 (command, "replace-selection") == 0 && editable && text)
        replace_selection (widget, text);
    else if (g_strcmp0 (command, "delete") == 0 && editable) {
        if (GTK_IS_TEXT_VIEW (widget))
            gtk_text_buffer_delete_selection (gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget)), TRUE, TRUE);
        else
            gtk_editable_delete_selection (GTK_EDITABLE (widget));
    } else if (g_strcmp0 (command, "select-all") == 0) {
        if (GTK_IS_TEXT_VIEW (widget))
            g_signal_emit_by_name (widget, "select-all", TRUE);
        else
            gtk_editable_select_region (GTK_EDITABLE (widget), 0, -1);
    } else {
        MB_DEBUG ("%s: nothing to do for '%s' here", mb_field_context_id (attachment_of (widget)->field), command);
    }
}

/* MenuBus undo steps are never recorded for GTK 4 widgets: nothing to apply. */
static void
field_apply (gpointer data, const MbEdit *edits, guint n)
{
}

/* Asked from outside (ShowMenuForFocus): the widget's context menu at its
 * caret, as the Menu key opens it (GtkText's and GtkTextView's action). */
static gboolean
field_show_menu (gpointer data, guint32 timestamp)
{
    GtkWidget *widget = data;
    return gtk_widget_get_mapped (widget) && gtk_widget_activate_action (widget, "menu.popup", NULL);
}

static const MbFieldOps field_ops = { field_flags, field_selection, field_perform, field_apply, field_show_menu };

/* ---------- the extra menu ---------- */

static gint
section_position (Attachment *att)
{
    return att->app_menu ? 1 : 0;
}

/* MenuBus's section leaves the extra menu; its action group goes. */
static void
drop_export (Attachment *att)
{
    if (att->section_shown) {
        g_menu_remove (att->extra, section_position (att));
        att->section_shown = FALSE;
    }
    if (att->actions) {
        gtk_widget_insert_action_group (att->widget, ACTION_PREFIX, NULL);
        g_clear_object (&att->actions);
    }
    g_clear_object (&att->model);
}

/* The presented menu's export becomes MenuBus's section. */
static void
show_export (Attachment *att, const gchar *path)
{
    GDBusConnection *bus = mb_shim_connection ();
    const gchar *daemon = mb_shim_daemon ();
    drop_export (att);
    if (!bus || !daemon)
        return;
    att->actions = G_ACTION_GROUP (g_dbus_action_group_get (bus, daemon, path));
    att->model = G_MENU_MODEL (g_dbus_menu_model_get (bus, daemon, path));
    gtk_widget_insert_action_group (att->widget, ACTION_PREFIX, att->actions);
    /* Both start reading now (DescribeAll, and Start with the change
     * signals), so the items are there before the menu first opens. */
    g_strfreev (g_action_group_list_actions (att->actions));
    g_menu_model_get_n_items (att->model);
    g_menu_insert_section (att->extra, section_position (att), NULL, att->model);
    att->section_shown = TRUE;
}

/* ---------- presenting ---------- */

/* What decides whether an edit menu has something to show once GTK's own
 * commands are left out: the kind of selection (a caret, a range) and the
 * field's flags; typing at a caret changes neither. */
static gint
state_of (Attachment *att)
{
    MbSelection selection = { 0 };
    field_selection (att->widget, &selection);
    mb_selection_clear (&selection);
    return (gint) selection.kind << 8 | (gint) field_flags (att->widget);
}

/* The widget, or its context menu (a child of it), has the focus. */
static gboolean
focus_inside (Attachment *att)
{
    return gtk_event_controller_focus_contains_focus (GTK_EVENT_CONTROLLER_FOCUS (att->focus));
}

static gboolean
present_again (gpointer data)
{
    Attachment *att = data;
    att->again_id = 0;
    present (att);
    return G_SOURCE_REMOVE;
}

static void
present_later (Attachment *att)
{
    if (!att->again_id)
        att->again_id = g_idle_add (present_again, att);
}

static void
presentation_event (MbMenu *menu, MbMenuEvent event, const gchar *path, gpointer data)
{
    Attachment *att = data;
    if (menu != att->presented)
        return;
    MB_DEBUG ("%s: menu %s%s", mb_field_context_id (att->field),
           event == MB_MENU_LIVE ? "presented at " : event == MB_MENU_CLOSED ? "closed" :
           event == MB_MENU_EMPTY ? "empty" : "failed", path ? path : "");
    if (event == MB_MENU_LIVE) {
        att->empty = FALSE;
        show_export (att, path);
        return;
    }
    drop_export (att);
    att->presented = NULL;
    mb_menu_close (menu);
    att->empty = event == MB_MENU_EMPTY;
    /* Chosen from or dismissed: the focused widget's next menu is presented
     * now. Failed: at the next focus. */
    if (event == MB_MENU_CLOSED && mb_shim_daemon () && focus_inside (att))
        present_later (att);
}

static void
present (Attachment *att)
{
    if (att->presented || !mb_shim_daemon ())
        return;
    att->asked_state = state_of (att);
    att->presented = mb_menu_present_live (att->field, gtk_own_commands, presentation_event, att);
}

/* ---------- following the widget ---------- */

static void
changed (Attachment *att)
{
    mb_field_changed (att->field);
    /* Nothing to show last time: asked again when that may have changed
     * (a word selected), as soon as the loop is idle, since the menu may
     * be opened right after. */
    if (att->empty && !att->presented && focus_inside (att) && state_of (att) != att->asked_state)
        present_later (att);
}

static void
on_notify (GObject *object, GParamSpec *pspec, gpointer data)
{
    changed (data);
}

static void
on_buffer_changed (GtkTextBuffer *buffer, gpointer data)
{
    changed (data);
}

static void
on_mark_set (GtkTextBuffer *buffer, GtkTextIter *at, GtkTextMark *mark, gpointer data)
{
    if (mark == gtk_text_buffer_get_insert (buffer) || mark == gtk_text_buffer_get_selection_bound (buffer))
        changed (data);
}

static void
on_editable_changed (GtkEditable *editable, gpointer data)
{
    changed (data);
}

static void
focused (Attachment *att)
{
    gtk4_follow_clipboard (att->widget);
    mb_field_focused (att->field);
    present (att);
}

static void
on_focus_enter (GtkEventControllerFocus *controller, gpointer data)
{
    focused (data);
}

static void
on_focus_leave (GtkEventControllerFocus *controller, gpointer data)
{
    mb_field_blurred (((Attachment *) data)->field);
}

/* menubusd came or went. */
static void
daemon_changed (gboolean running, gpointer data)
{
    for (GList *l = attachments; l; l = l->next) {
        Attachment *att = l->data;
        if (!running) {
            /* Its live menus heard it already (CLOSED); one still asked for
             * ends with its call. */
            drop_export (att);
        } else if (focus_inside (att)) {
            present (att);
        }
    }
}

/* ---------- attaching ---------- */

static void
set_extra_menu (GtkWidget *widget, GMenuModel *model)
{
    if (GTK_IS_TEXT_VIEW (widget))
        gtk_text_view_set_extra_menu (GTK_TEXT_VIEW (widget), model);
    else
        gtk_text_set_extra_menu (GTK_TEXT (widget), model);
}

static GMenuModel *
get_extra_menu (GtkWidget *widget)
{
    if (GTK_IS_TEXT_VIEW (widget))
        return gtk_text_view_get_extra_menu (GTK_TEXT_VIEW (widget));
    return gtk_text_get_extra_menu (GTK_TEXT (widget));
}

/* What is left when the widget is finalized, or after detaching: nothing
 * here touches the widget. */
static void
attachment_free (gpointer data)
{
    Attachment *att = data;
    attachments = g_list_remove (attachments, att);
    if (att->again_id)
        g_source_remove (att->again_id);
    if (att->presented)
        mb_menu_close (att->presented); /* dismissed */
    if (att->buffer)
        g_signal_handlers_disconnect_by_data (att->buffer, att);
    g_clear_object (&att->buffer);
    g_clear_object (&att->actions);
    g_clear_object (&att->model);
    g_clear_object (&att->extra);
    g_clear_object (&att->app_menu);
    mb_field_free (att->field); /* its context is removed */
    g_free (att);
}

G_MODULE_EXPORT gboolean
menubus_gtk4_attach (GtkWidget *widget)
{
    g_return_val_if_fail (GTK_IS_WIDGET (widget), FALSE);
    GtkWidget *target = text_widget (widget);
    if (!target)
        return FALSE;
    if (attachment_of (target))
        return TRUE;
    if (!mb_shim_enabled ("gtk4"))
        return FALSE;
    mb_shim_watch_daemon (daemon_changed, NULL);

    Attachment *att = g_new0 (Attachment, 1);
    att->widget = target;
    att->field = mb_field_new (target, &field_ops);
    att->extra = g_menu_new ();
    GMenuModel *own = get_extra_menu (target);
    if (own) {
        att->app_menu = g_object_ref (own);
        g_menu_append_section (att->extra, NULL, own);
    }
    set_extra_menu (target, G_MENU_MODEL (att->extra));
    g_object_set_data_full (G_OBJECT (target), ATTACHMENT_KEY, att, attachment_free);
    attachments = g_list_prepend (attachments, att);

    if (GTK_IS_TEXT_VIEW (target)) {
        /* The buffer may outlive the view: held, and let go in attachment_free. */
        att->buffer = g_object_ref (gtk_text_view_get_buffer (GTK_TEXT_VIEW (target)));
        g_signal_connect (att->buffer, "changed", G_CALLBACK (on_buffer_changed), att);
        g_signal_connect (att->buffer, "mark-set", G_CALLBACK (on_mark_set), att);
    } else {
        g_signal_connect (target, "changed", G_CALLBACK (on_editable_changed), att);
        g_signal_connect (target, "notify::cursor-position", G_CALLBACK (on_notify), att);
        g_signal_connect (target, "notify::selection-bound", G_CALLBACK (on_notify), att);
    }
    g_signal_connect (target, "notify::editable", G_CALLBACK (on_notify), att);
    att->focus = gtk_event_controller_focus_new ();
    g_signal_connect (att->focus, "enter", G_CALLBACK (on_focus_enter), att);
    g_signal_connect (att->focus, "leave", G_CALLBACK (on_focus_leave), att);
    gtk_widget_add_controller (target, att->focus);

    if (gtk_widget_has_focus (target))
        focused (att);
    return TRUE;
}

G_MODULE_EXPORT void
menubus_gtk4_detach (GtkWidget *widget)
{
    g_return_if_fail (GTK_IS_WIDGET (widget));
    GtkWidget *target = text_widget (widget);
    Attachment *att = attachment_of (target);
    if (!att)
        return;
    g_object_steal_data (G_OBJECT (target), ATTACHMENT_KEY);
    g_signal_handlers_disconnect_by_data (target, att);
    gtk_widget_remove_controller (target, att->focus);
    drop_export (att);
    set_extra_menu (target, att->app_menu);
    attachment_free (att);
}
