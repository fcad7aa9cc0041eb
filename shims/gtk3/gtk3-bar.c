/* The edit bar over a selection made with the pointer (the core decides
 * when it shows and what it holds, mb-bar.c): a GtkPopover relative to the
 * field, pointing at the selection from above (GTK puts it below where
 * there is no room), drawn inside the toplevel's own surface, so it is the
 * same on X11 and Wayland. It is not modal and nothing in it takes the
 * focus: typing goes on into the field. Its box is a tool bar named "Edit
 * Bar" for a screen reader, each item a push button named by its title,
 * and a last "›" ("More") opens the field's whole edit menu.
 *
 * It goes on any key but a lone modifier, a button press or a scroll
 * anywhere but on the bar (seen by an emission hook of GtkWidget::event,
 * before any handler of the app's), and when the core says so (the
 * selection changed, the focus went). */
#include <gtk/gtk.h>
#include <string.h>

#include "gtk3-module.h"

#define BAR_KEY "menubus-bar"            /* a field widget's Bar */
#define ITEM_KEY "menubus-bar-item"      /* a button's item id */

typedef struct {
    GtkWidget *popover; /* NULL until first shown, and once destroyed */
    Gtk3ShowMenu show_menu;
} Bar;

/* The field whose bar shows now (one at most: it follows the focus). */
static GWeakRef showing;

static Bar *
bar_of (GtkWidget *widget)
{
    return widget ? g_object_get_data (G_OBJECT (widget), BAR_KEY) : NULL;
}

/* ---------- where the selection is, in the widget's coordinates ---------- */

static gboolean
view_rect (GtkTextView *view, GdkRectangle *rect)
{
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
    GtkTextIter a, b;
    if (!gtk_text_buffer_get_selection_bounds (buffer, &a, &b))
        return FALSE;
    GdkRectangle first, last, visible;
    gtk_text_view_get_iter_location (view, &a, &first);
    gtk_text_view_get_iter_location (view, &b, &last);
    if (first.y == last.y) {
        rect->x = first.x;
        rect->width = MAX (last.x - first.x, 1);
    } else { /* more than a line: the text's visible width */
        gtk_text_view_get_visible_rect (view, &visible);
        rect->x = visible.x;
        rect->width = visible.width;
    }
    rect->height = MAX (last.y + last.height - first.y, 1);
    gtk_text_view_buffer_to_window_coords (view, GTK_TEXT_WINDOW_WIDGET, rect->x, first.y, &rect->x, &rect->y);
    return TRUE;
}

static gboolean
entry_rect (GtkEntry *entry, GdkRectangle *rect)
{
    gint start, end;
    if (!gtk_editable_get_selection_bounds (GTK_EDITABLE (entry), &start, &end))
        return FALSE;
    const gchar *text = gtk_entry_get_text (entry);
    PangoLayout *layout = gtk_entry_get_layout (entry);
    gint x, y;
    gtk_entry_get_layout_offsets (entry, &x, &y);
    gint a = gtk_entry_text_index_to_layout_index (entry, (gint) (g_utf8_offset_to_pointer (text, start) - text));
    gint b = gtk_entry_text_index_to_layout_index (entry, (gint) (g_utf8_offset_to_pointer (text, end) - text));
    PangoRectangle at_a, at_b, logical;
    pango_layout_index_to_pos (layout, a, &at_a);
    pango_layout_index_to_pos (layout, b, &at_b);
    pango_layout_get_pixel_extents (layout, NULL, &logical);
    rect->x = x + PANGO_PIXELS (MIN (at_a.x, at_b.x));
    rect->width = MAX (PANGO_PIXELS (ABS (at_b.x - at_a.x)), 1);
    rect->y = y + logical.y;
    rect->height = MAX (logical.height, 1);
    return TRUE;
}

/* A widget that draws its own text (gtk3-atk.c): its AtkText's extents
 * on the screen, less the origin of the widget's window (as Scintilla
 * reckons them), in the widget's coordinates. */
static gboolean
atk_rect (GtkWidget *widget, GdkRectangle *rect)
{
    AtkObject *accessible = gtk_widget_get_accessible (widget);
    GdkWindow *window = gtk_widget_get_window (widget);
    if (!window || !accessible || !ATK_IS_TEXT (accessible) || atk_text_get_n_selections (ATK_TEXT (accessible)) < 1)
        return FALSE;
    gint start = 0, end = 0, x = 0, y = 0;
    g_free (atk_text_get_selection (ATK_TEXT (accessible), 0, &start, &end));
    AtkTextRectangle extents = { 0 };
    atk_text_get_range_extents (ATK_TEXT (accessible), MIN (start, end), MAX (start, end), ATK_XY_SCREEN, &extents);
    if (start == end || extents.width <= 0 || extents.height <= 0)
        return FALSE;
    gdk_window_get_origin (window, &x, &y);
    GtkAllocation allocation = { 0 };
    if (!gtk_widget_get_has_window (widget))
        gtk_widget_get_allocation (widget, &allocation);
    *rect = (GdkRectangle) { extents.x - x - allocation.x, extents.y - y - allocation.y, extents.width, extents.height };
    return TRUE;
}

/* The selection's rectangle, within the widget's allocation (its top
 * edge is where the bar points); the widget's top middle when unknown. */
static void
selection_rect (GtkWidget *widget, GdkRectangle *rect)
{
    gint width = gtk_widget_get_allocated_width (widget), height = gtk_widget_get_allocated_height (widget);
    gboolean known = GTK_IS_TEXT_VIEW (widget) ? view_rect (GTK_TEXT_VIEW (widget), rect)
                     : GTK_IS_ENTRY (widget)   ? entry_rect (GTK_ENTRY (widget), rect)
                                               : atk_rect (widget, rect);
    if (!known)
        *rect = (GdkRectangle) { width / 2, 0, 1, 1 };
    GdkRectangle bounds = { 0, 0, MAX (width, 1), MAX (height, 1) };
    if (!gdk_rectangle_intersect (rect, &bounds, rect))
        *rect = (GdkRectangle) { CLAMP (rect->x, 0, bounds.width - 1), CLAMP (rect->y, 0, bounds.height - 1), 1, 1 };
}

/* ---------- the bar's buttons ---------- */

static void
on_item (GtkButton *button, GtkWidget *widget)
{
    MbField *field = gtk3_field_of (widget);
    g_autofree gchar *id = g_strdup (g_object_get_data (G_OBJECT (button), ITEM_KEY));
    guint32 timestamp = gtk_get_current_event_time ();
    if (!field || !id)
        return;
    mb_field_dismiss_bar (field);
    mb_field_choose (field, id, timestamp);
}

/* After the click is over: the menu opens at the caret, as for the Menu key. */
static gboolean
open_menu (gpointer data)
{
    GtkWidget *widget = data;
    Bar *bar = bar_of (widget);
    if (bar && bar->show_menu && !gtk_widget_in_destruction (widget))
        bar->show_menu (widget, GDK_CURRENT_TIME);
    g_object_unref (widget);
    return G_SOURCE_REMOVE;
}

static void
on_more (GtkButton *button, GtkWidget *widget)
{
    mb_field_dismiss_bar (gtk3_field_of (widget));
    g_idle_add (open_menu, g_object_ref (widget));
}

static GtkWidget *
bar_button (const gchar *label, const gchar *name, GCallback clicked, GtkWidget *widget)
{
    GtkWidget *button = gtk_button_new_with_label (label);
    gtk_button_set_relief (GTK_BUTTON (button), GTK_RELIEF_NONE);
    gtk_widget_set_can_focus (button, FALSE);
    gtk_widget_set_focus_on_click (button, FALSE);
    atk_object_set_name (gtk_widget_get_accessible (button), name);
    g_signal_connect (button, "clicked", clicked, widget);
    return button;
}

/* `items` (a(ssa{sv}), in order) as a row of buttons, then "›". */
static GtkWidget *
bar_box (GtkWidget *widget, GVariant *items)
{
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
    AtkObject *accessible = gtk_widget_get_accessible (box);
    atk_object_set_role (accessible, ATK_ROLE_TOOL_BAR);
    atk_object_set_name (accessible, "Edit Bar");
    gsize n = g_variant_n_children (items);
    for (gsize i = 0; i < n; i++) {
        const gchar *id, *parent, *title = NULL;
        g_autoptr (GVariant) properties = NULL;
        g_variant_get_child (items, i, "(&s&s@a{sv})", &id, &parent, &properties);
        if (!g_variant_lookup (properties, "title", "&s", &title) || !*title)
            continue;
        GtkWidget *button = bar_button (title, title, G_CALLBACK (on_item), widget);
        g_object_set_data_full (G_OBJECT (button), ITEM_KEY, g_strdup (id), g_free);
        gtk_container_add (GTK_CONTAINER (box), button);
    }
    GtkWidget *more = bar_button ("›", "More", G_CALLBACK (on_more), widget);
    gtk_widget_set_tooltip_text (more, "More");
    gtk_container_add (GTK_CONTAINER (box), more);
    return box;
}

/* ---------- showing and hiding ---------- */

void
gtk3_bar_show (gpointer data, GVariant *items)
{
    GtkWidget *widget = data;
    Bar *bar = bar_of (widget);
    if (!bar || !gtk_widget_get_mapped (widget) || !GTK_IS_WINDOW (gtk_widget_get_toplevel (widget)))
        return;
    if (!bar->popover) {
        bar->popover = gtk_popover_new (widget);
        g_signal_connect (bar->popover, "destroy", G_CALLBACK (gtk_widget_destroyed), &bar->popover);
        gtk_popover_set_modal (GTK_POPOVER (bar->popover), FALSE);
        gtk_popover_set_position (GTK_POPOVER (bar->popover), GTK_POS_TOP);
        gtk_widget_set_can_focus (bar->popover, FALSE);
        gtk_style_context_add_class (gtk_widget_get_style_context (bar->popover), "menubus-edit-bar");
    }
    GtkWidget *old = gtk_bin_get_child (GTK_BIN (bar->popover));
    if (old)
        gtk_widget_destroy (old);
    GtkWidget *box = bar_box (widget, items);
    gtk_widget_show_all (box);
    gtk_container_add (GTK_CONTAINER (bar->popover), box);
    GdkRectangle rect;
    selection_rect (widget, &rect);
    gtk_popover_set_pointing_to (GTK_POPOVER (bar->popover), &rect);
    g_weak_ref_set (&showing, widget);
    /* Shown at once (no transition), and not modal: no grab, no focus. */
    gtk_widget_show (bar->popover);
}

void
gtk3_bar_hide (gpointer data)
{
    GtkWidget *widget = data;
    Bar *bar = bar_of (widget);
    g_autoptr (GtkWidget) shown = g_weak_ref_get (&showing);
    if (shown == widget)
        g_weak_ref_set (&showing, NULL);
    if (bar && bar->popover)
        gtk_widget_hide (bar->popover);
}

/* ---------- a selection made with the pointer ---------- */

/* The field a button event went to: the widget, or the widget it is part
 * of (Scintilla draws its text in a child of its own). */
static MbField *
field_at (GtkWidget *widget)
{
    for (guint depth = 0; widget && depth < 3; depth++, widget = gtk_widget_get_parent (widget)) {
        MbField *field = bar_of (widget) ? gtk3_field_of (widget) : NULL;
        if (field)
            return field;
    }
    return NULL;
}

/* Every widget's events, before any handler (the app's may stop them):
 * button 1 released over a field with a selection made by then (a
 * double-click's is made at the second press, a drag's with its last
 * motion) may show the bar; any key but a lone modifier (the window hears
 * it first), a button press or a scroll anywhere but on the bar hides it.
 * The event goes on as it would. */
static gboolean
event_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    GdkEvent *event = g_value_get_boxed (&params[1]);
    if (!GTK_IS_WIDGET (widget) || !event)
        return TRUE;
    if (event->type == GDK_BUTTON_RELEASE) {
        if (event->button.button == 1)
            mb_field_pointer_selected (field_at (widget));
        return TRUE;
    }
    if (event->type != GDK_KEY_PRESS && event->type != GDK_BUTTON_PRESS && event->type != GDK_SCROLL &&
        event->type != GDK_TOUCH_BEGIN)
        return TRUE;
    g_autoptr (GtkWidget) field = g_weak_ref_get (&showing);
    Bar *bar = bar_of (field);
    if (!bar || !bar->popover || (event->type == GDK_KEY_PRESS && event->key.is_modifier) ||
        widget == bar->popover || gtk_widget_is_ancestor (widget, bar->popover))
        return TRUE;
    mb_field_dismiss_bar (gtk3_field_of (field));
    return TRUE;
}

static void
forget_bar (GtkWidget *widget, gpointer data)
{
    Bar *bar = bar_of (widget);
    if (!bar)
        return;
    gtk3_bar_hide (widget);
    if (bar->popover)
        gtk_widget_destroy (bar->popover);
    g_object_set_data (G_OBJECT (widget), BAR_KEY, NULL);
}

void
gtk3_bar_follow (GtkWidget *widget, Gtk3ShowMenu show_menu)
{
    static gboolean hooked;
    if (!mb_shim_edit_bar_enabled () || bar_of (widget))
        return;
    if (!hooked) {
        hooked = TRUE;
        g_signal_add_emission_hook (g_signal_lookup ("event", GTK_TYPE_WIDGET), 0, event_hook, NULL, NULL);
    }
    Bar *bar = g_new0 (Bar, 1);
    bar->show_menu = show_menu;
    g_object_set_data_full (G_OBJECT (widget), BAR_KEY, bar, g_free);
    g_signal_connect (widget, "destroy", G_CALLBACK (forget_bar), NULL);
}
