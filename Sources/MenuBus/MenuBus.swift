// What an app that imports MenuBus sees beside the client: the model it
// describes its screen in, and the D-Bus values the client's calls carry.
// The composition rules, the undo store, the daemon's service and exports
// stay in their own modules.

@_exported import struct MenuBusModel.ContextInfo
@_exported import struct MenuBusModel.ContextPreview
@_exported import struct MenuBusModel.LintFinding
@_exported import struct MenuBusModel.MenuElement
@_exported import struct MenuBusModel.ProviderInfo
@_exported import enum MenuBusModel.ProviderRole
@_exported import enum MenuBusModel.MenuKind
@_exported import enum MenuBusModel.MenuAppearance
@_exported import struct MenuBusModel.Rect
@_exported import struct MenuBusModel.Selection
@_exported import enum MenuBusModel.StandardCommand
@_exported import struct MenuBusModel.UndoState

@_exported import struct MenuBusDBus.BusError
@_exported import enum MenuBusDBus.DBusValue
@_exported import struct MenuBusDBus.ObjectPath
@_exported import struct MenuBusDBus.Signature

@_exported import enum MenuBusProtocol.MenuBusNames
