extension CodeStatusTexts {
    public static let polish = CodeStatusTexts(
        navigation: "Moje kody",
        title: "Twoje kody z ostatnich 7 dni",
        intro: "Czy wydane przez Ciebie kody teleTAN i inne kody zostały wykorzystane. Same kody nigdy nie są pokazywane ponownie: znajdź kod po jego rodzaju i czasie wydania. Unieważnij kod przeczytany niewłaściwej osobie.",
        authorityTitle: "Kody Twojego organu sanitarnego z ostatnich 7 dni",
        authorityIntro: "Kody teleTAN i inne kody wszystkich pracowników Twojego organu sanitarnego oraz informacja, czy zostały wykorzystane.",
        showMine: "Tylko moje",
        showAuthority: "Wszystkie mojego organu",
        kindHeading: "Rodzaj",
        issuedHeading: "Wydano",
        validUntilHeading: "Ważny do",
        statusHeading: "Stan",
        officerHeading: "Pracownik",
        actionHeading: "Działanie",
        unused: "Niewykorzystany",
        usedAt: "Wykorzystany, {hour}",
        expired: "Wygasł",
        expireButton: "Unieważnij",
        expiredNotice: "Kod został unieważniony: nie można go już użyć.",
        notLive: "Kod był już wykorzystany lub wygasł; nic nie zmieniono.",
        unknownCode: "Nie możesz zobaczyć tego kodu.",
        nothing: "Brak kodów teleTAN i innych kodów z ostatnich 7 dni.",
        noRole: "Twoje konto nie ma roli, która wydaje kody teleTAN lub inne kody, więc nie ma czego sprawdzać. Poproś przełożonego o potrzebną rolę.",
        supervisorsOnly: "Tylko przełożeni widzą kody wszystkich pracowników swojego urzędu. Twoje własne kody są w zakładce Moje kody.",
        kinds: [
            "TEST": "teleTAN TEST",
            "EVENT": "teleTAN EVENT",
            "COVIDSHIELD": "kod CovidShield",
            "PROTEGO": "PIN ProteGO Safe",
        ]
    )
}
