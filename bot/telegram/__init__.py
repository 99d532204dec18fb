"""The Telegram adapter: python-telegram-bot's Application, thin handlers, the transport."""
