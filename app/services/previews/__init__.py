"""Link previews, the 1200 by 630 PNG a link-sharing site shows (``og:image``) for a paper, a
topic or an edition: how it is drawn (``drawing``, pure), and what each says, read from the
store, with the images the daily job draws when it publishes, stored as files the web reads
(``stored``)."""
