/// The value types and the codec (`MenuBusCodec`, no libdbus) are part of
/// this room's API: whoever imports MenuBusDBus has them.
@_exported import MenuBusCodec
