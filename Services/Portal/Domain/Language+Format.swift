extension Language {
    /// How pages in this language write numbers, dates and times.
    public var format: LocaleFormat {
        switch self {
        case .en:
            LocaleFormat(
                groupingSeparator: ",", minimumGroupingDigits: 1, dateStyle: .monthNameDayYear,
                months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], timeSeparator: ":")
        case .de:
            LocaleFormat(
                groupingSeparator: ".", minimumGroupingDigits: 1, dateStyle: .dayMonthYearDotted,
                months: ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."], timeSeparator: ":")
        case .fr:
            // Canadian French (CovidShield's): a no-break space groups digits, and `14 h 05`.
            LocaleFormat(
                groupingSeparator: "\u{00A0}", minimumGroupingDigits: 1, dateStyle: .dayMonthNameYear,
                months: ["janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."],
                timeSeparator: "\u{00A0}h\u{00A0}")
        case .pl:
            LocaleFormat(
                groupingSeparator: "\u{00A0}", minimumGroupingDigits: 2, dateStyle: .dayMonthYearDotted,
                months: ["sty", "lut", "mar", "kwi", "maj", "cze", "lip", "sie", "wrz", "paź", "lis", "gru"], timeSeparator: ":")
        }
    }
}
