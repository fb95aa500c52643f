/// A histogram of call durations with logarithmic buckets, read as percentiles.
///
/// Each power of two is split into four buckets, so a percentile is the upper edge of its bucket: at most
/// 19 % above the true value, and never outside the smallest and largest duration recorded (a histogram
/// of equal durations reports them exactly). Recording is O(1) and the memory is fixed (256 counters).
public struct LatencyHistogram: Sendable, Hashable {
    /// 2^(k/4) for k = 0…3: the sub-bucket edges inside one power of two.
    private static let quarterEdges: [Double] = [
        1, 1.189_207_115_002_721, 1.414_213_562_373_095, 1.681_792_830_507_429,
    ]
    private static let bucketCount = 256

    private var buckets: [Int] = []
    private var minimumNanoseconds: Int64 = .max
    private var maximumNanoseconds: Int64 = 0
    private var totalNanoseconds: Double = 0

    /// The number of durations recorded.
    public private(set) var count = 0

    /// Creates an empty histogram.
    public init() {}

    /// The shortest duration recorded, or `nil` when empty.
    public var minimum: Duration? { count == 0 ? nil : .nanoseconds(minimumNanoseconds) }

    /// The longest duration recorded, or `nil` when empty.
    public var maximum: Duration? { count == 0 ? nil : .nanoseconds(maximumNanoseconds) }

    /// The mean duration, or `nil` when empty.
    public var mean: Duration? {
        count == 0 ? nil : Duration(saturatingNanoseconds: (totalNanoseconds / Double(count)).rounded())
    }

    /// The median.
    public var p50: Duration? { percentile(0.5) }

    /// The 90th percentile.
    public var p90: Duration? { percentile(0.9) }

    /// The 99th percentile.
    public var p99: Duration? { percentile(0.99) }

    /// Adds one duration.
    ///
    /// - Parameter duration: The duration; negative ones count as zero.
    public mutating func record(_ duration: Duration) {
        let nanoseconds = max(duration.nanoseconds, 0)
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        buckets[Self.bucket(of: nanoseconds)] += 1
        count += 1
        minimumNanoseconds = min(minimumNanoseconds, nanoseconds)
        maximumNanoseconds = max(maximumNanoseconds, nanoseconds)
        totalNanoseconds += Double(nanoseconds)
    }

    /// Adds every duration of another histogram.
    ///
    /// - Parameter other: The histogram to add.
    public mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        if buckets.isEmpty { buckets = Array(repeating: 0, count: Self.bucketCount) }
        for index in other.buckets.indices { buckets[index] += other.buckets[index] }
        count += other.count
        minimumNanoseconds = min(minimumNanoseconds, other.minimumNanoseconds)
        maximumNanoseconds = max(maximumNanoseconds, other.maximumNanoseconds)
        totalNanoseconds += other.totalNanoseconds
    }

    /// The duration below which the share `fraction` of the recorded durations fall.
    ///
    /// - Parameter fraction: From `0` to `1`: `0.99` for the 99th percentile; below 0, or not a number, 0; above 1, 1.
    /// - Returns: The upper edge of the bucket holding that rank, clamped to the recorded range; `nil`
    ///   when the histogram is empty.
    public func percentile(_ fraction: Double) -> Duration? {
        guard count > 0 else { return nil }
        // `fraction > 0` is false for a NaN, which `min` and `max` would pass through to a trapping `Int(_:)`.
        let share = fraction > 0 ? min(fraction, 1) : 0
        let rank = max(1, Int((share * Double(count)).rounded(.up)))
        var seen = 0
        for (index, bucketCount) in buckets.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= rank {
                let edge = Self.upperEdge(of: index)
                let clamped = min(max(edge, Double(minimumNanoseconds)), Double(maximumNanoseconds))
                return Duration(saturatingNanoseconds: clamped.rounded())
            }
        }
        return maximum
    }

    /// The bucket of a duration: `ceil(4 × log2(nanoseconds))`, 0 for one nanosecond or less.
    private static func bucket(of nanoseconds: Int64) -> Int {
        guard nanoseconds > 1 else { return 0 }
        let value = Double(nanoseconds)
        let significand = value.significand
        guard significand > 1 else { return min(Int(value.exponent) * 4, bucketCount - 1) }
        let quarter = 1 + quarterEdges.dropFirst().filter { significand > $0 }.count
        return min(Int(value.exponent) * 4 + quarter, bucketCount - 1)
    }

    /// The upper edge of a bucket in nanoseconds: 2^(index/4).
    private static func upperEdge(of index: Int) -> Double {
        Double(sign: .plus, exponent: index / 4, significand: quarterEdges[index % 4])
    }
}
