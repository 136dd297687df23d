import ExposureRules

/// The key of every daily count: a UTC day (days since 1970-01-01) and its `YYYY-MM-DD` text.
public typealias StatisticsDay = UTCDay
