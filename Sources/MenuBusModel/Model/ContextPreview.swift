/// What a presenter may show above a context's menu: the item itself, as
/// UIKit's context menu previews it (`previewProvider`). Choosing the
/// preview is an activation the owner hears as `ActionInvoked` of
/// `ElementID.preview`, as UIKit commits a preview.
public struct ContextPreview: Hashable, Sendable {
    /// The picture of the item, in one of three forms.
    public enum Image: Hashable, Sendable {
        /// A `file://` URI of a picture the presenter loads.
        case uri(String)
        /// A freedesktop icon name (`image-x-generic`).
        case icon(String)
        /// PNG bytes, at most `ContextPreview.maxPNGBytes`.
        case png([UInt8])
    }

    /// The preview's first line.
    public var title: String
    /// A second line (a file's size, a link's address).
    public var subtitle: String?
    /// The picture, if any.
    public var image: Image?

    /// Bytes of `png`: a thumbnail of a photo or a page (256 KiB is a
    /// 512 × 512 photo as PNG), kept small because every presenter that
    /// reads the menu's `Preview` property is sent it whole.
    public static let maxPNGBytes = 512 << 10
    /// The eight bytes every PNG file starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A preview; `title` is required, the rest optional.
    public init(title: String, subtitle: String? = nil, image: Image? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.image = image
    }

    /// Bytes of the PNG it carries (0 for a URI or icon).
    package var imageBytes: Int {
        if case .png(let bytes) = image { return bytes.count }
        return 0
    }

    /// Checks strings against `Limits`, the URI's scheme, and the PNG's
    /// size and signature; `field` names the dict (`context.preview`).
    package func validate(field: String) throws(ModelError) {
        guard !title.isEmpty else { throw .invalid(field + ".title", "a preview needs a title") }
        try StringCheck.length(title, field: field + ".title")
        if let subtitle { try StringCheck.length(subtitle, field: field + ".subtitle") }
        switch image {
        case nil:
            break
        case .uri(let uri):
            try StringCheck.length(uri, field: field + ".image-uri")
            guard uri.hasPrefix("file://") else {
                throw .invalid(field + ".image-uri", "\(ModelError.quoted(uri)) is not a file:// URI")
            }
        case .icon(let name):
            try StringCheck.length(name, field: field + ".icon")
            guard !name.isEmpty else { throw .invalid(field + ".icon", "an icon name may not be empty") }
        case .png(let bytes):
            guard bytes.count <= Self.maxPNGBytes else {
                throw .limit(field + ".image-png",
                             "\(bytes.count) bytes are more than the limit of \(Self.maxPNGBytes) bytes (ContextPreview.maxPNGBytes)")
            }
            guard bytes.starts(with: Self.pngSignature) else {
                throw .invalid(field + ".image-png", "not a PNG: the bytes do not start with the PNG signature")
            }
        }
    }
}
