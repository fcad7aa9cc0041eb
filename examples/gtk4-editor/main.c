/* A small GTK 4 editor whose text view and search field show MenuBus's
 * items (Make Uppercase, Search Web, Translate, …) in their context menus,
 * after GTK's own Cut, Copy, Paste, Delete and Select All.
 *
 * For the text widgets, the whole of MenuBus is the two menubus_gtk4_attach
 * calls. The toolbar's Back button (toolbar.c) is a MenuBus button: a tap
 * goes back, press and hold shows the places visited (Return in the search
 * field visits what it holds). */
#include <gtk/gtk.h>
#include <menubus-gtk4.h>
#include "toolbar.h"

static void
search_activated (GtkEntry *search, Toolbar *toolbar)
{
    toolbar_visit (toolbar, gtk_editable_get_text (GTK_EDITABLE (search)));
    gtk_editable_set_text (GTK_EDITABLE (search), "");
}

static void
activate (GtkApplication *app, G_GNUC_UNUSED gpointer data)
{
    GtkWidget *window = gtk_application_window_new (app);
    gtk_window_set_default_size (GTK_WINDOW (window), 640, 420);

    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start (box, 6);
    gtk_widget_set_margin_end (box, 6);
    gtk_widget_set_margin_top (box, 6);
    gtk_widget_set_margin_bottom (box, 6);

    GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *search = gtk_entry_new ();
    gtk_entry_set_placeholder_text (GTK_ENTRY (search), "Search");
    gtk_accessible_update_property (GTK_ACCESSIBLE (search), GTK_ACCESSIBLE_PROPERTY_LABEL, "Search", -1);
    gtk_widget_set_hexpand (search, TRUE);
    gtk_box_append (GTK_BOX (box), bar);

    GtkWidget *view = gtk_text_view_new ();
    gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
    gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Document", -1);
    GtkWidget *scrolled = gtk_scrolled_window_new ();
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
    gtk_widget_set_vexpand (scrolled, TRUE);
    gtk_box_append (GTK_BOX (box), scrolled);

    /* MenuBus: one call a widget. FALSE only means no MenuBus items (turned
     * off with MENUBUS_DISABLE=1); the editor works the same. */
    gboolean attached = menubus_gtk4_attach (view);
    menubus_gtk4_attach (search);

    Toolbar *toolbar = toolbar_new (GTK_WINDOW (window), g_application_get_application_id (G_APPLICATION (app)),
                                    "Home", attached);
    gtk_box_append (GTK_BOX (bar), toolbar_back_button (toolbar));
    gtk_box_append (GTK_BOX (bar), search);
    g_signal_connect (search, "activate", G_CALLBACK (search_activated), toolbar);

    gtk_window_set_child (GTK_WINDOW (window), box);
    gtk_window_present (GTK_WINDOW (window));
    gtk_widget_grab_focus (view);
}

int
main (int argc, char **argv)
{
    GtkApplication *app = gtk_application_new ("org.menubus.examples.Gtk4Editor", G_APPLICATION_NON_UNIQUE);
    g_signal_connect (app, "activate", G_CALLBACK (activate), NULL);
    int status = g_application_run (G_APPLICATION (app), argc, argv);
    g_object_unref (app);
    return status;
}
