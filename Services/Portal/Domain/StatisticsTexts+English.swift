extension StatisticsTexts {
    public static let english = StatisticsTexts(
        navigation: "Statistics",
        title: "Statistics",
        intro: "Daily counts of the services, per UTC day. No count is about a single person or phone.",
        period: "Period",
        lastDays: "Last {days} days",
        show: "Show",
        download: "Download the figures of this period:",
        downloadCSV: "CSV",
        downloadJSON: "JSON",
        summary: "{total} in total, at most {max} a day",
        byBreakdown: "By part",
        dailyValues: "Daily values",
        day: "Day",
        count: "Count",
        total: "Total",
        nothingCounted: "Nothing was counted in this period.",
        sourceUnavailable: "The statistics of {service} could not be read. Please try again later.",
        notConfigured: "The portal has no statistics token (STATISTICS_API_TOKEN). Please ask the operators.",
        finishedDaysOnly: "The period ends yesterday: what apps do is counted for finished days only.",
        figures: [
            "teletans_issued": "teleTANs issued",
            "teletans_issued_by_officer": "teleTANs issued by officer",
            "registrations": "Tests registered by apps",
            "tans_issued": "TANs issued to apps",
            "tans_redeemed": "TANs redeemed by uploads",
            "lab_results_received": "Lab results received",
            "keys_submitted": "Keys submitted",
            "keys_published": "Keys published",
        ],
        services: ["verification": "verification", "testresult": "test results", "submission": "submission"]
    )
}
