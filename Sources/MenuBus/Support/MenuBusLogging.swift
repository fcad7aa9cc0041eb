/// Logging for the executables, with the same journald prefixes as the library.
public enum MenuBusLogging {
    /// Turns debug lines on or off.
    public static func setVerbose(_ verbose: Bool) {
        Log.threshold = verbose ? .debug : .info
    }

    public static func info(_ text: String) { Log.info(text) }
    public static func warning(_ text: String) { Log.warning(text) }
    public static func error(_ text: String) { Log.error(text) }
}
