/* menubus-gtk4 (menubus-gtk4.h says what and when): GTK 4's side of the
 * shim core (shims/core): which widgets, their text and selection, the
 * commands done on them, and the extra menu. */
#include "menubus-gtk4.h"

#include <string.h>

#include "menubus-policy.h"
#include "menubus-shim.h"
#include "gtk4-clipboard.h"
#include "gtk4-menu.h"
#include "gtk4-text.h"

#define ATTACHMENT_KEY "menubus-gtk4-attachment"
/* How long items held while the focus was elsewhere wait for newer ones. */
#define HELD_WAIT_MS 250

/* What GTK 4's own text menu shows: left out of MenuBus's. */
static const gchar *const gtk_own_commands[] = { "cut", "copy", "paste", "delete", "select-all", NULL };

typedef struct {
    GtkWidget *widget;     /* the GtkText or GtkTextView (not owned: the attachment is its data) */
    MbField *field;
    GMenuModel *app_menu;  /* the app's own extra menu when attached, or NULL */
    GMenu *extra;          /* the widget's extra-menu: the app's section, then MenuBus's */
    gboolean section_shown; /* MenuBus's section is in `extra`, its actions on the widget */
    Gtk4Menu *menu;        /* MenuBus's section, built here from the presented menu's items */
    MbMenu *presented;     /* being asked for or live; NULL when none */
    gboolean live;         /* `presented` is presented (MB_MENU_LIVE came) */
    GVariant *held;        /* its items last heard while the focus was elsewhere */
    guint held_id;         /* `held` shown, when no newer items follow the focus back */
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

/* A command chosen in a menu, done by the widget's own means. */
static void
field_perform (gpointer data, const gchar *command, const gchar *text, const gchar *undo_name)
{
    GtkWidget *widget = data;
    gboolean editable = (gtk4_field_flags (widget) & MB_FIELD_EDITABLE) != 0;
    if (g_strcmp0 (command, "copy") == 0)
        g_signal_emit_by_name (widget, "copy-clipboard");
    else if (g_strcmp0 (command, "cut") == 0 && editable)
        g_signal_emit_by_name (widget, "cut-clipboard");
    else if (g_strcmp0 (command, "paste") == 0 && editable)
        g_signal_emit_by_name (widget, "paste-clipboard");
    else if (g_strcmp0 (command, "replace-selection") == 0 && editable && text)
        gtk4_replace_selection (widget, text);
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

static const MbFieldOps field_ops = { gtk4_field_flags, gtk4_field_selection, field_perform, field_apply, field_show_menu };

/* ---------- the extra menu ---------- */

static gint
section_position (Attachment *att)
{
    return att->app_menu ? 1 : 0;
}

/* MenuBus's section leaves the extra menu (menubusd went): the widget's
 * menu is GTK's and the app's alone. */
static void
drop_section (Attachment *att)
{
    if (att->section_shown) {
        g_menu_remove (att->extra, section_position (att));
        gtk_widget_insert_action_group (att->widget, GTK4_MENU_ACTION_PREFIX, NULL);
        att->section_shown = FALSE;
    }
    gtk4_menu_update (att->menu, NULL);
}

/* The section shows `items` (NULL: none). It joins the extra menu with its
 * first items and stays while menubusd runs, empty or not, so GTK keeps
 * its widgets from one menu to the next. */
static void
show_items (Attachment *att, GVariant *items)
{
    gtk4_menu_update (att->menu, items);
    if (att->section_shown || gtk4_menu_is_empty (att->menu))
        return;
    gtk_widget_insert_action_group (att->widget, GTK4_MENU_ACTION_PREFIX, gtk4_menu_actions (att->menu));
    g_menu_insert_section (att->extra, section_position (att), NULL, gtk4_menu_model (att->menu));
    att->section_shown = TRUE;
}

/* GTK 4.8's GtkPopoverMenu keeps the page of a submenu whose item went
 * (a page of its GtkStack, named by the item's label) and adds another
 * when the item comes back ("duplicate child name in GtkStack"), so the
 * popover grew each time MenuBus's Services came back (a caret, then a
 * selection): that page leaves the widget's popover with its item. A
 * private detail of GTK's, held by Gtk4ImModuleTests; where it no longer
 * holds, nothing is taken out. */
static GtkWidget *
find_stack (GtkWidget *widget, guint depth)
{
    if (GTK_IS_STACK (widget))
        return widget;
    for (GtkWidget *child = gtk_widget_get_first_child (widget); child && depth > 0;
         child = gtk_widget_get_next_sibling (child)) {
        GtkWidget *stack = find_stack (child, depth - 1);
        if (stack)
            return stack;
    }
    return NULL;
}

static void
submenu_gone (const gchar *label, gpointer data)
{
    Attachment *att = data;
    for (GtkWidget *child = gtk_widget_get_first_child (att->widget); child; child = gtk_widget_get_next_sibling (child)) {
        GtkWidget *stack = GTK_IS_POPOVER_MENU (child) ? find_stack (child, 5) : NULL;
        GtkWidget *page = stack ? gtk_stack_get_child_by_name (GTK_STACK (stack), label) : NULL;
        if (page && page != gtk_stack_get_visible_child (GTK_STACK (stack)))
            gtk_stack_remove (GTK_STACK (stack), page);
    }
}

/* An item of the section chosen: through the live presentation, or, when
 * none is (between two), as from the menu for the selection now. */
static void
item_chosen (const gchar *item_id, gpointer data)
{
    Attachment *att = data;
    if (att->presented && att->live)
        mb_menu_activate (att->presented, item_id, GDK_CURRENT_TIME);
    else
        mb_field_choose (att->field, item_id, GDK_CURRENT_TIME);
}

/* ---------- presenting ---------- */

static void
forget_held (Attachment *att)
{
    g_clear_pointer (&att->held, g_variant_unref);
    if (att->held_id) {
        g_source_remove (att->held_id);
        att->held_id = 0;
    }
}

/* What decides whether an edit menu has something to show once GTK's own
 * commands are left out: the kind of selection (a caret, a range) and the
 * field's flags; typing at a caret changes neither. */
static gint
state_of (Attachment *att)
{
    MbSelection selection = { 0 };
    gtk4_field_selection (att->widget, &selection);
    mb_selection_clear (&selection);
    return (gint) selection.kind << 8 | (gint) gtk4_field_flags (att->widget);
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
        att->live = TRUE;
        return;
    }
    /* Closed: its items stay until the next presentation's come, which
     * changes only what differs. Nothing to show, or failed: they go. */
    forget_held (att);
    if (event != MB_MENU_CLOSED)
        gtk4_menu_update (att->menu, NULL);
    att->presented = NULL;
    att->live = FALSE;
    mb_menu_close (menu);
    att->empty = event == MB_MENU_EMPTY;
    /* Chosen from or dismissed: the focused widget's next menu is presented
     * now. Failed: at the next focus. */
    if (event == MB_MENU_CLOSED && mb_shim_daemon () && focus_inside (att))
        present_later (att);
}

/* The presented menu's items, as they come and as they change. Those that
 * come while the focus is elsewhere (menubusd composes nothing for a
 * field without it) are held: the focus coming back brings the field's
 * own again, and the section does not empty and fill on every switch of
 * windows (GTK 4.8 would add the Services submenu's page to the popover
 * again each time). */
static void
presentation_items (MbMenu *menu, GVariant *items, gpointer data)
{
    Attachment *att = data;
    if (menu != att->presented || !items)
        return;
    forget_held (att);
    if (focus_inside (att))
        show_items (att, items);
    else
        att->held = g_variant_ref (items);
}

/* No newer items came since the focus came back: the held ones are the
 * field's. */
static gboolean
show_held (gpointer data)
{
    Attachment *att = data;
    att->held_id = 0;
    if (att->held)
        show_items (att, att->held);
    forget_held (att);
    return G_SOURCE_REMOVE;
}

static void
present (Attachment *att)
{
    if (att->presented || !mb_shim_daemon ())
        return;
    att->asked_state = state_of (att);
    att->presented = mb_menu_present_live (att->field, gtk_own_commands, presentation_event, att);
    if (att->presented)
        mb_menu_follow (att->presented, presentation_items);
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
    if (att->held && !att->held_id)
        att->held_id = g_timeout_add (HELD_WAIT_MS, show_held, att);
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
            drop_section (att);
        } else if (focus_inside (att)) {
            present (att);
        }
    }
}

/* ---------- attaching ---------- */

/* What is left when the widget is finalized, or after detaching: nothing
 * here touches the widget. */
static void
attachment_free (gpointer data)
{
    Attachment *att = data;
    attachments = g_list_remove (attachments, att);
    if (att->again_id)
        g_source_remove (att->again_id);
    forget_held (att);
    if (att->presented)
        mb_menu_close (att->presented); /* dismissed */
    if (att->buffer)
        g_signal_handlers_disconnect_by_data (att->buffer, att);
    g_clear_object (&att->buffer);
    gtk4_menu_free (att->menu);
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
    att->menu = gtk4_menu_new (item_chosen, submenu_gone, att);
    GMenuModel *own = gtk4_get_extra_menu (target);
    if (own) {
        att->app_menu = g_object_ref (own);
        g_menu_append_section (att->extra, NULL, own);
    }
    gtk4_set_extra_menu (target, G_MENU_MODEL (att->extra));
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
    drop_section (att);
    gtk4_set_extra_menu (target, att->app_menu);
    attachment_free (att);
}
