/* Which IM the `menubus` context wraps: the one GTK 4 would have picked
 * without it, decided by GTK's own rules (gtk/gtkimmodule.c: GTK_IM_MODULE,
 * then the gtk-im-module setting, each a colon-separated list whose first
 * usable entry wins, then the registered module of highest priority that
 * suits the display), with `menubus` left out, and MENUBUS_GTK4_WRAPPED_IM
 * before them all. */
#include "im-menubus.h"

#include <string.h>

#ifdef GDK_WINDOWING_WAYLAND
#include <gdk/wayland/gdkwayland.h>
#endif
#ifdef GDK_WINDOWING_BROADWAY
#include <gdk/broadway/gdkbroadway.h>
#endif

/* GTK's ids and their short aliases. */
#define SIMPLE_ID "gtk-im-context-simple"
#define NONE_ID "gtk-im-context-none"

static GIOExtensionPoint *
extension_point (void)
{
    return g_io_extension_point_lookup (GTK_IM_MODULE_EXTENSION_POINT_NAME);
}

/* The modules that serve one windowing system only, as GTK checks them. */
static gboolean
suits_display (GdkDisplay *display, const gchar *id)
{
    if (g_strcmp0 (id, "wayland") == 0) {
#ifdef GDK_WINDOWING_WAYLAND
        return display && GDK_IS_WAYLAND_DISPLAY (display) &&
               gdk_wayland_display_query_registry (display, "zwp_text_input_manager_v3");
#else
        return FALSE;
#endif
    }
    if (g_strcmp0 (id, "broadway") == 0) {
#ifdef GDK_WINDOWING_BROADWAY
        return display && GDK_IS_BROADWAY_DISPLAY (display);
#else
        return FALSE;
#endif
    }
    if (g_strcmp0 (id, "ime") == 0 || g_strcmp0 (id, "quartz") == 0)
        return FALSE; /* Windows' and macOS's */
    return TRUE;
}

/* The first entry of `list` GTK would take, `menubus` left out; NULL when none. */
static gchar *
pick (GdkDisplay *display, const gchar *list)
{
    if (!list || !*list)
        return NULL;
    gchar **ids = g_strsplit (list, ":", 0);
    gchar *found = NULL;
    for (guint i = 0; ids[i] && !found; i++) {
        const gchar *id = ids[i];
        if (!*id || strcmp (id, MB_IM_ID) == 0 || !suits_display (display, id))
            continue;
        if (strcmp (id, SIMPLE_ID) == 0 || strcmp (id, "simple") == 0)
            found = g_strdup (SIMPLE_ID);
        else if (strcmp (id, NONE_ID) == 0 || strcmp (id, "none") == 0)
            found = g_strdup (NONE_ID);
        else if (g_io_extension_point_get_extension_by_name (extension_point (), id))
            found = g_strdup (id);
    }
    g_strfreev (ids);
    return found;
}

static gchar *
setting (GdkDisplay *display)
{
    gchar *value = NULL;
    if (display)
        g_object_get (gtk_settings_get_for_display (display), "gtk-im-module", &value, NULL);
    return value;
}

gchar *
mb_im_wrapped_id (GdkDisplay *display)
{
    gchar *id = pick (display, g_getenv (MB_IM_WRAPPED_ENV));
    if (!id)
        id = pick (display, g_getenv ("GTK_IM_MODULE"));
    if (!id) {
        gchar *value = setting (display);
        id = pick (display, value);
        g_free (value);
    }
    /* The extension point's list is sorted by priority, highest first. */
    for (GList *l = g_io_extension_point_get_extensions (extension_point ()); l && !id; l = l->next) {
        const gchar *name = g_io_extension_get_name (l->data);
        if (strcmp (name, MB_IM_ID) != 0 && suits_display (display, name))
            id = g_strdup (name);
    }
    return id ? id : g_strdup (SIMPLE_ID);
}

GtkIMContext *
mb_im_wrapped_new (const gchar *id)
{
    if (strcmp (id, NONE_ID) == 0)
        return NULL;
    GIOExtension *extension = g_io_extension_point_get_extension_by_name (extension_point (), id);
    if (!extension || strcmp (id, MB_IM_ID) == 0)
        return gtk_im_context_simple_new ();
    return g_object_new (g_io_extension_get_type (extension), NULL);
}

static gboolean
names_us (const gchar *list)
{
    gchar **ids = g_strsplit (list ? list : "", ":", 0);
    gboolean named = g_strv_contains ((const gchar *const *) ids, MB_IM_ID);
    g_strfreev (ids);
    return named;
}

gboolean
mb_im_named (GdkDisplay *display)
{
    if (names_us (g_getenv ("GTK_IM_MODULE")))
        return TRUE;
    gchar *value = setting (display);
    gboolean named = names_us (value);
    g_free (value);
    return named;
}
