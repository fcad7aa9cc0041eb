/* A small GTK 4 editor whose text view and search field show MenuBus's
 * items (Make Uppercase, Search Web, Translate, …) in their context menus,
 * after GTK's own Cut, Copy, Paste, Delete and Select All.
 *
 * The whole of MenuBus here is the two menubus_gtk4_attach calls. */
#include <gtk/gtk.h>
#include <menubus-gtk4.h>

static void
activate (GtkApplication *app, G_GNUC_UNUSED gpointer data)
{
    GtkWidget *window = gtk_application_window_new (app);
    gtk_window_set_title (GTK_WINDOW (window), "MenuBus GTK 4 Editor");
    gtk_window_set_default_size (GTK_WINDOW (window), 640, 420);

    GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start (box, 6);
    gtk_widget_set_margin_end (box, 6);
    gtk_widget_set_margin_top (box, 6);
    gtk_widget_set_margin_bottom (box, 6);

    GtkWidget *search = gtk_entry_new ();
    gtk_entry_set_placeholder_text (GTK_ENTRY (search), "Search");
    gtk_accessible_update_property (GTK_ACCESSIBLE (search), GTK_ACCESSIBLE_PROPERTY_LABEL, "Search", -1);
    gtk_box_append (GTK_BOX (box), search);

    GtkWidget *view = gtk_text_view_new ();
    gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
    gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, "Document", -1);
    GtkWidget *scrolled = gtk_scrolled_window_new ();
    gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
    gtk_widget_set_vexpand (scrolled, TRUE);
    gtk_box_append (GTK_BOX (box), scrolled);

    /* MenuBus: one call a widget. FALSE only means no MenuBus items (turned
     * off with MENUBUS_DISABLE=1); the editor works the same. */
    menubus_gtk4_attach (view);
    menubus_gtk4_attach (search);

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
