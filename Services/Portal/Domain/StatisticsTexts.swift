/// The statistics page's texts in one language (`Language.statisticsTexts`).
public struct StatisticsTexts: Sendable {
    public let navigation: String
    public let title: String
    public let intro: String
    public let period: String
    /// "Last {days} days"
    public let lastDays: String
    public let show: String
    public let download: String
    public let downloadCSV: String
    public let downloadJSON: String
    /// "{total} in total, at most {max} a day"
    public let summary: String
    /// The same period just before, as the chart's second series and its total: "{days}" and "{total}".
    public let previousPeriod: String
    public let byBreakdown: String
    public let dailyValues: String
    public let day: String
    public let count: String
    public let total: String
    public let nothingCounted: String
    /// "The statistics of {service} could not be read."
    public let sourceUnavailable: String
    public let notConfigured: String
    public let finishedDaysOnly: String
    /// The heading of today's counts so far (officers', labs' and health-authority systems' figures).
    public let soFarToday: String
    /// Why figures of what apps do are not among today's.
    public let appFiguresWait: String
    public let nothingYetToday: String
    /// The heading of the column of figures' names.
    public let figureHeading: String
    /// The heading of the funnel of each app family: from codes or registrations to uploads.
    public let funnelHeading: String
    public let funnelIntro: String
    /// A step's share of the step before: "{share}".
    public let shareOfStepBefore: String
    /// The funnel's steps, by the figure each counts (`codes_issued`).
    public let funnelSteps: [String: String]
    /// What each figure means, by its name (`teletans_issued`).
    public let figures: [String: String]
    /// The services, by name.
    public let services: [String: String]

    public init(
        navigation: String, title: String, intro: String, period: String, lastDays: String, show: String, download: String,
        downloadCSV: String, downloadJSON: String, summary: String, previousPeriod: String, byBreakdown: String, dailyValues: String, day: String,
        count: String, total: String, nothingCounted: String, sourceUnavailable: String, notConfigured: String,
        finishedDaysOnly: String, soFarToday: String, appFiguresWait: String, nothingYetToday: String,
        figureHeading: String, funnelHeading: String, funnelIntro: String, shareOfStepBefore: String, funnelSteps: [String: String],
        figures: [String: String],
        services: [String: String]
    ) {
        self.navigation = navigation
        self.title = title
        self.intro = intro
        self.period = period
        self.lastDays = lastDays
        self.show = show
        self.download = download
        self.downloadCSV = downloadCSV
        self.downloadJSON = downloadJSON
        self.summary = summary
        self.previousPeriod = previousPeriod
        self.byBreakdown = byBreakdown
        self.dailyValues = dailyValues
        self.day = day
        self.count = count
        self.total = total
        self.nothingCounted = nothingCounted
        self.sourceUnavailable = sourceUnavailable
        self.notConfigured = notConfigured
        self.finishedDaysOnly = finishedDaysOnly
        self.soFarToday = soFarToday
        self.appFiguresWait = appFiguresWait
        self.nothingYetToday = nothingYetToday
        self.figureHeading = figureHeading
        self.funnelHeading = funnelHeading
        self.funnelIntro = funnelIntro
        self.shareOfStepBefore = shareOfStepBefore
        self.funnelSteps = funnelSteps
        self.figures = figures
        self.services = services
    }

    /// A figure's name for people; the stored name when the texts have none.
    public func figure(_ name: String) -> String { figures[name] ?? name }
}
