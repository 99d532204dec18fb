"""One message to Telegram, with its failures translated for the postman."""

from __future__ import annotations

import warnings
from datetime import timedelta

from telegram import Bot, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.warnings import PTBDeprecationWarning

from bot.postman import ChatGone, ChatMoved, Rejected, RetryLater, Transient

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
GONE = ("chat not found", "bot was kicked", "user is deactivated", "bot is not a member")


def retry_seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # int vs timedelta: PTB is migrating; take either
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class TelegramTransport:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send(self, chat_id: int, text: str, *, html: bool = True) -> int:
        try:
            message = await self.bot.send_message(
                chat_id,
                text,
                parse_mode=ParseMode.HTML if html else None,
                link_preview_options=NO_PREVIEW,
            )
        except RetryAfter as error:
            raise RetryLater(retry_seconds(error)) from error
        except Forbidden as error:
            raise ChatGone(error.message) from error
        except ChatMigrated as error:
            raise ChatMoved(error.new_chat_id) from error
        except BadRequest as error:
            if any(reason in error.message.lower() for reason in GONE):
                raise ChatGone(error.message) from error
            raise Rejected(error.message) from error
        except (TimedOut, NetworkError) as error:
            raise Transient(str(error)) from error
        except TelegramError as error:  # anything else Telegram says: try again later
            raise Transient(str(error)) from error
        return message.message_id
