/* The GIO module GTK 4 loads from its immodules folder: registers the
 * `menubus` context type on the gtk-im-module extension point. */
#include "im-menubus.h"

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
    /* Used once and never let go: the module stays loaded, since the bus
     * connection's thread and pending calls outlive any one context. */
    g_type_module_use (G_TYPE_MODULE (module));
    mb_im_context_register (G_TYPE_MODULE (module));
    g_io_extension_point_implement (GTK_IM_MODULE_EXTENSION_POINT_NAME, MB_TYPE_IM_CONTEXT, MB_IM_ID, MB_IM_PRIORITY);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

/* What gio-querymodules writes into the folder's giomodule.cache. */
G_MODULE_EXPORT char **
g_io_module_query (void)
{
    char *points[] = { (char *) GTK_IM_MODULE_EXTENSION_POINT_NAME, NULL };
    return g_strdupv (points);
}
