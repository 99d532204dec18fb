"""The pure core: text in, values out. No files, sockets, database or Telegram in here."""
