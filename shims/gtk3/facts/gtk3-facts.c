/* What the GTK 3 module relies on that GTK does not promise, checked
 * against the GTK installed: GTK's own context-menu items of a GtkEntry,
 * a plain GtkTextView and a selectable GtkLabel are told apart by the
 * module's own recogniser (gtk3_item_command: the "gtk-signal" object
 * data GTK sets on Cut, Copy and Paste, and GTK's translated titles of
 * Delete and Select All). Prints one line per fact and exits 1 when one
 * no longer holds: then the module leaves such menus alone (its
 * fallback), and the recogniser needs to learn GTK's new way. Needs a
 * display (ToolkitFactsTests runs it under Xvfb). */
#include <gtk/gtk.h>

#include "gtk3-module.h"

static const gchar *const expected[] = { "cut", "copy", "paste", "delete", "select-all" };
static gint failures;

static void
check_menu (const gchar *what, GtkMenu *menu)
{
    g_autoptr (GList) children = gtk_container_get_children (GTK_CONTAINER (menu));
    for (guint e = 0; e < G_N_ELEMENTS (expected); e++) {
        gboolean found = FALSE;
        for (GList *l = children; l && !found; l = l->next) {
            gboolean gtk_own = FALSE;
            const gchar *command = gtk3_item_command (l->data, &gtk_own);
            found = gtk_own && g_strcmp0 (command, expected[e]) == 0;
        }
        g_print ("%s %s: GTK's own %s item %s\n", found ? "ok" : "FAILED", what, expected[e],
                 found ? "recognised" : "not recognised: GTK changed how it marks it");
        if (!found)
            failures++;
    }
}

static void
on_populate (GtkWidget *widget, GtkWidget *menu, gpointer what)
{
    if (GTK_IS_MENU (menu))
        check_menu (what, GTK_MENU (menu));
    else {
        g_print ("FAILED %s: populate-popup gave a %s, not a GtkMenu\n", (const gchar *) what, G_OBJECT_TYPE_NAME (menu));
        failures++;
    }
    g_object_set_data (G_OBJECT (widget), "checked", GINT_TO_POINTER (1));
}

static void
pop_up (GtkWidget *widget, const gchar *what)
{
    g_signal_connect (widget, "populate-popup", G_CALLBACK (on_populate), (gpointer) what);
    gtk_widget_grab_focus (widget);
    gboolean handled = FALSE;
    g_signal_emit_by_name (widget, "popup-menu", &handled);
    /* GtkEntry and GtkTextView build the menu once the clipboard's
     * targets are read: the loop runs until then, 5 s at most. */
    gint64 until = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    while (!g_object_get_data (G_OBJECT (widget), "checked") && g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, FALSE) || (g_usleep (1000), TRUE);
    if (!g_object_get_data (G_OBJECT (widget), "checked")) {
        g_print ("FAILED %s: popup-menu built no menu (populate-popup was not emitted)\n", what);
        failures++;
    }
}

int
main (int argc, char **argv)
{
    gtk_init (&argc, &argv);
    GtkWidget *window = gtk_window_new (GTK_WINDOW_TOPLEVEL);
    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
    gtk_container_add (GTK_CONTAINER (window), box);
    GtkWidget *entry = gtk_entry_new ();
    gtk_entry_set_text (GTK_ENTRY (entry), "the quick brown fox");
    GtkWidget *view = gtk_text_view_new ();
    gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), "the quick brown fox", -1);
    GtkWidget *label = gtk_label_new ("the quick brown fox");
    gtk_label_set_selectable (GTK_LABEL (label), TRUE);
    gtk_box_pack_start (GTK_BOX (box), entry, FALSE, FALSE, 0);
    gtk_box_pack_start (GTK_BOX (box), view, TRUE, TRUE, 0);
    gtk_box_pack_start (GTK_BOX (box), label, FALSE, FALSE, 0);
    gtk_widget_show_all (window);
    while (gtk_events_pending ())
        gtk_main_iteration ();
    if (!gtk3_builds_own_items (entry) || !gtk3_builds_own_items (view) || !gtk3_builds_own_items (label)) {
        g_print ("FAILED the module does not expect GTK's own items in these widgets' menus\n");
        failures++;
    }
    pop_up (entry, "GtkEntry");
    pop_up (view, "GtkTextView");
    pop_up (label, "GtkLabel");
    g_print ("%s: %d of the module's GTK facts failed (GTK %u.%u.%u)\n", failures ? "FAILED" : "ok", failures,
             gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version ());
    return failures ? 1 : 0;
}
