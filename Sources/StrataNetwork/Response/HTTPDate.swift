import Foundation

/// Parses and formats HTTP dates (RFC 9110, section 5.6.7) without `DateFormatter`.
///
/// Parsing accepts the three historic forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). Formatting writes
/// IMF-fixdate.
///
/// Parsing is total: any string — a year of 10¹², digits that overflow, control bytes, 64 KiB of text —
/// gives a date or `nil`, never a trap. Fields are as long as the grammar allows (a year has four digits,
/// or two in the RFC 850 form) and a value longer than ``maximumLength`` is not a date, so every date
/// lies between the years 0 and 9999 and the arithmetic cannot overflow.
public enum HTTPDate: Sendable {
    /// The longest value taken for a date, in UTF-8 bytes: 64. The longest valid date,
    /// `Wednesday, 09-Nov-1994 08:49:37 GMT`, has 35.
    public static let maximumLength = 64

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// The seconds since 1970 of 0000-01-01T00:00:00Z and of 9999-12-31T23:59:59Z: the dates a year of four
    /// digits can name, and the range ``format(_:)`` clamps to.
    /// `Int64`: a 32-bit `Int` (arm64_32 watchOS) cannot hold them.
    private static let representable: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// Parses an HTTP date.
    ///
    /// - Parameter string: The header value; surrounding spaces and tabs are ignored.
    /// - Returns: The date, or `nil` when the value is not an HTTP date.
    public static func parse(_ string: String) -> Date? {
        guard string.utf8.count <= maximumLength else { return nil }
        let bytes = Array(string.utf8)
        let tokens = bytes.split(omittingEmptySubsequences: true) { separators.contains($0) }
        let day: ArraySlice<UInt8>
        let month: ArraySlice<UInt8>
        let year: Int
        let time: ArraySlice<UInt8>
        if bytes.contains(UInt8(ascii: ",")) {
            // IMF-fixdate: day name, day, month, year, time, zone. RFC 850: day name, `06-Nov-94`, time, zone.
            let date: [ArraySlice<UInt8>]
            if tokens.count == 6 {
                date = Array(tokens[1...3])
            } else if tokens.count == 4 {
                date = tokens[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            } else {
                return nil
            }
            guard date.count == 3, let zone = tokens.last, lowercased(zone) == "gmt" else { return nil }
            (day, month, time) = (date[0], date[1], tokens[tokens.count - 2])
            if let short = number(date[2], digits: 2...2) {
                // RFC 850's two-digit year: 70–99 are the 1900s, 00–69 the 2000s, as browsers and HTTP libraries read
                // it. Read so, no year is more than 50 years ahead of a current year from 2019 on (RFC 9110, section
                // 5.6.7, has such a year read as past), and `Thu, 01-Jan-70 00:00:01 GMT`, the "already expired" many
                // servers send, is 1970 (a window of 50 years around the current year, tried, read it as 2070).
                year = short + (short < 70 ? 2000 : 1900)
            } else {
                guard let long = number(date[2], digits: 4...4) else { return nil }
                year = long
            }
        } else {
            // asctime: day name, month, day, time, year.
            guard tokens.count == 5, let long = number(tokens[4], digits: 4...4) else { return nil }
            (month, day, time, year) = (tokens[1], tokens[2], tokens[3], long)
        }
        let clock = time.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard let day = number(day, digits: 1...2), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: lowercased(month)),
            clock.count == 3,
            let hour = number(clock[0], digits: 1...2), (0...23).contains(hour),
            let minute = number(clock[1], digits: 1...2), (0...59).contains(minute),
            let second = number(clock[2], digits: 1...2), (0...60).contains(second)
        else { return nil }
        // A year of at most four digits keeps the days below 2²², every product below 2⁴⁰ in `Int64`: no overflow
        // is possible, with a 32-bit `Int` too.
        let days = Int64(daysFromCivil(year: year, month: monthIndex + 1, day: day))
        let seconds = ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60 + Int64(second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Formats a date as an IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// - Parameter date: The date; fractions of a second are dropped, and a date outside the years 0–9999
    ///   (or not finite) is written as the nearest end of that range.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970.rounded(.down)
        let total: Int64
        if interval >= Double(representable.upperBound) {
            total = representable.upperBound
        } else if interval >= Double(representable.lowerBound) {
            total = Int64(interval)
        } else {
            // Below the range, or NaN.
            total = representable.lowerBound
        }
        var days = Int(total / 86_400)
        var secondsOfDay = Int(total % 86_400)
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        let weekday = dayNames[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let time = "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60))"
        let paddedYear = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(paddedYear) \(time) GMT"
    }

    /// Space, tab and comma: what separates the fields.
    private static let separators: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ",")]

    /// The value of a field of ASCII digits whose count is in `digits`; `nil` for anything else.
    private static func number(_ field: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(field.count) else { return nil }
        var value = 0
        for byte in field {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// A short ASCII field in lower case (`GMT`, a month name); other bytes are kept as they are.
    private static func lowercased(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    // Howard Hinnant's days_from_civil and civil_from_days.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
