"""The reader's language: /language shows it and the choices (to anyone), /language CODE
changes it (in groups, administrators only). A chat starts in the language of the one who
first spoke."""

from __future__ import annotations

from bot.commands.replies import Reply, Usage, echo, tr
from bot.core.chat import Chat
from bot.core.i18n import Translator
from bot.core.render import escape
from bot.i18n import available, language_name, offered, translator
from bot.service.app import Paperbot


async def language(app: Paperbot, chat: Chat, args: str) -> Reply | Usage:
    t = tr(chat)
    code = args.strip()
    if not code:
        return Reply(language_status(t))
    chosen = offered(code)
    if chosen is None:
        return Reply(f"{not_offered(t, code)}\n{language_status(t)}")
    app.change(chat, language=chosen)
    now = translator(chosen)
    return Reply(
        now.gettext("From now on I write to this chat in {name}.").format(name=now.name())
        + "\n"
        + now.gettext("Paper titles and abstracts stay in the paper's language.")
    )


def not_offered(t: Translator, code: str) -> str:
    """A language asked for that is not offered, by its name where CLDR knows the code
    ("Chinese (Traditional)" for zh-hant: not the Simplified one instead)."""
    name = language_name(code, t)
    if name is None:
        return t.gettext("I do not speak <code>{code}</code> yet.").format(code=echo(code, 20))
    return t.gettext("I do not speak {language} yet.").format(language=escape(name))


def language_status(t: Translator) -> str:
    """What /language alone shows: the chat's language and the choices."""
    choices = ", ".join(f"{lang} ({translator(lang).name()})" for lang in available())
    return t.gettext(
        "This chat's language: {name} ({code}).\nChoices: {choices}.\n"
        "Change it with /language CODE, e.g. /language de."
    ).format(name=t.name(), code=t.language, choices=choices)
