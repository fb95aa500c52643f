import Foundation

/// Parses and formats HTTP dates (RFC 9110, section 5.6.7) without `DateFormatter`.
///
/// Parsing accepts the three historic forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`). Formatting writes
/// IMF-fixdate.
public enum HTTPDate: Sendable {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// Parses an HTTP date.
    ///
    /// - Parameter string: The header value.
    /// - Returns: The date, or `nil` when the value is not an HTTP date.
    public static func parse(_ string: String) -> Date? {
        let text = string.trimmingCharacters(in: .whitespaces)
        let tokens: [Substring]
        if let comma = text.firstIndex(of: ",") {
            // IMF-fixdate or RFC 850: the day name, a comma, then day month year time zone.
            let rest = text[text.index(after: comma)...].replacingOccurrences(of: "-", with: " ")
            let parts = rest.split(separator: " ")
            guard parts.count == 5, parts[4].uppercased() == "GMT" else { return nil }
            tokens = [parts[0], parts[1], parts[2], parts[3]]
        } else {
            // asctime: day-name month day time year.
            let parts = text.split(separator: " ")
            guard parts.count == 5 else { return nil }
            tokens = [parts[2], parts[1], parts[4], parts[3]]
        }
        guard let day = Int(tokens[0]), (1...31).contains(day),
            let monthIndex = months.firstIndex(of: tokens[1].lowercased()),
            var year = Int(tokens[2])
        else { return nil }
        if tokens[2].count == 2 { year += year < 70 ? 2000 : 1900 }
        let time = tokens[3].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Formats a date as an IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// - Parameter date: The date; fractions of a second are dropped.
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        var days = total / 86_400
        var secondsOfDay = total % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        let weekday = dayNames[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let time = "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60))"
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(year) \(time) GMT"
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
