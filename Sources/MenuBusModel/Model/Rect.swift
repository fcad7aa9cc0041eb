/// A rectangle in the app's surface coordinates, `(iiii)` on the wire:
/// where the selection is, or where a presenter anchors a menu.
public struct Rect: Hashable, Sendable {
    public var x: Int32
    public var y: Int32
    /// Not negative; 0 for a caret or a point.
    public var width: Int32
    /// Not negative; 0 for a point.
    public var height: Int32

    public init(x: Int32, y: Int32, width: Int32 = 0, height: Int32 = 0) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Throws unless width and height are not negative.
    package func validate(field: String) throws(ModelError) {
        guard width >= 0, height >= 0 else {
            throw .invalid(field, "a rectangle's width and height may not be negative (got \(width)×\(height))")
        }
    }
}
