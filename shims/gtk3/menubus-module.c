/* MenuBus in unmodified GTK 3 apps: a GTK module (GTK_MODULES=menubus).
 *
 * Every GtkEntry (GtkSearchEntry and GtkSpinButton included), GtkTextView
 * and selectable GtkLabel takes part: focused, it is published to menubusd
 * as a context whose selection follows; its context menu gets menubusd's
 * edit menu for that selection; GtkEntry and plain GtkTextView, which
 * have no undo in GTK 3, keep MenuBus undo steps ("Undo Typing", Ctrl+Z).
 * A widget that draws its own text but exposes it through ATK (geany's
 * Scintilla view) takes part too, and the app's own menu over it gets
 * MenuBus's items (gtk3-atk.c).
 *
 * Left out: password entries, widgets an app marks with the GObject data
 * key "menubus-exclude", apps listed in menubus/integration.conf, and any
 * app run with MENUBUS_DISABLE=1. */
#include <gtk/gtk.h>
#include <string.h>

#include "gtk3-module.h"

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

void
gtk3_follow_clipboard (void)
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

static gboolean
populate_popup_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    GtkWidget *menu = g_value_get_object (&params[1]);
    if (!GTK_IS_MENU (menu) || !GTK_IS_WIDGET (widget) || !gtk3_takes_part (widget) ||
        g_object_get_data (G_OBJECT (menu), POPUP_KEY))
        return TRUE;
    MbField *field = gtk3_adopt (widget);
    if (!gtk_widget_has_focus (widget))
        mb_field_focused (field);
    /* Before the app's own handlers (this hook runs first): mousepad
     * moves the items of its menu in at "show" and out at "deactivate". */
    Popup *popup = gtk3_popup_new (GTK_MENU (menu), widget);
    g_signal_connect_after (menu, "show", G_CALLBACK (gtk3_menu_shown), popup);
    return TRUE;
}

static gboolean
focus_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    if (!GTK_IS_WIDGET (widget))
        return TRUE;
    MbField *field = gtk3_takes_part (widget) ? gtk3_adopt (widget)
                     : gtk3_atk_takes_part (widget) ? gtk3_atk_adopt (widget) : NULL;
    if (!field)
        return TRUE;
    gtk3_follow_clipboard ();
    mb_field_focused (field);
    return TRUE;
}

/* The field lost the keyboard focus, its window's included. */
static gboolean
blur_hook (GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data)
{
    GtkWidget *widget = g_value_get_object (&params[0]);
    MbField *field = GTK_IS_WIDGET (widget) ? gtk3_field_of (widget) : NULL;
    if (field)
        mb_field_blurred (field);
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
    g_signal_add_emission_hook (g_signal_lookup ("focus-out-event", GTK_TYPE_WIDGET), 0, blur_hook, NULL, NULL);
    GType popups[] = { GTK_TYPE_ENTRY, GTK_TYPE_TEXT_VIEW, GTK_TYPE_LABEL };
    for (guint i = 0; i < G_N_ELEMENTS (popups); i++) {
        g_type_class_ref (popups[i]);
        g_signal_add_emission_hook (g_signal_lookup ("populate-popup", popups[i]), 0, populate_popup_hook, NULL, NULL);
    }
    gtk3_atk_watch ();
}

/* GTK loads the module and never unloads it: its hooks stay. */
G_MODULE_EXPORT const gchar *g_module_check_init (GModule *module);

G_MODULE_EXPORT const gchar *
g_module_check_init (GModule *module)
{
    g_module_make_resident (module);
    return NULL;
}

