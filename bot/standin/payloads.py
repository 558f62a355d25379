"""JSON payload builders (state -> what Discord would send)."""

from __future__ import annotations

from .models import (
    ADD_REACTIONS,
    ATTACH_FILES,
    CHANNEL_DM,
    EMBED_LINKS,
    JSON,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    RecordedFile,
    iso_now,
    snowflake_time,
)
from .state import StandinState

DM_APP_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_APPLICATION_COMMANDS
)


def channel(fake: StandinState, ch: FakeChannel) -> JSON:
    if ch.type == CHANNEL_DM:
        return {
            "id": str(ch.id),
            "type": CHANNEL_DM,
            "last_message_id": str(ch.last_message_id) if ch.last_message_id else None,
            "flags": 0,
            "recipients": [fake.users[u].to_payload() for u in ch.recipient_ids],
        }
    data: JSON = {
        "id": str(ch.id),
        "type": ch.type,
        "guild_id": str(ch.guild_id),
        "name": ch.name,
        "parent_id": str(ch.parent_id) if ch.parent_id else None,
        "last_message_id": str(ch.last_message_id) if ch.last_message_id else None,
        "rate_limit_per_user": 0,
        "flags": 0,
        "nsfw": False,
    }
    if ch.is_thread:
        data.update(
            owner_id=str(ch.owner_id),
            message_count=ch.message_count,
            member_count=len(ch.member_ids),
            total_message_sent=ch.message_count,
            thread_metadata={
                "archived": ch.archived,
                "auto_archive_duration": ch.auto_archive_duration,
                "archive_timestamp": snowflake_time(ch.id),
                "locked": ch.locked,
                "invitable": True,
                "create_timestamp": snowflake_time(ch.id),
            },
        )
        if fake.bot_user.id in ch.member_ids:
            data["member"] = {
                "id": str(ch.id),
                "user_id": str(fake.bot_user.id),
                "join_timestamp": snowflake_time(ch.id),
                "flags": 0,
            }
    else:
        data.update(
            position=ch.position,
            permission_overwrites=[],
            topic=ch.topic,
            default_auto_archive_duration=1440,
        )
    data.update(fake.forums.fields(ch))  # forum channels and their posts (forum.py)
    return data


def attachment(
    fake: StandinState, channel_id: int, aid: int, rf: RecordedFile, description: str | None
) -> JSON:
    url = f"{fake.base_url}/attachments/{channel_id}/{aid}/{rf.filename}"
    data: JSON = {
        "id": str(aid),
        "filename": rf.filename,
        "size": len(rf.data),
        "url": url,
        "proxy_url": url,
        "content_type": rf.content_type or "application/octet-stream",
    }
    if description:
        data["description"] = description
    return data


def message(fake: StandinState, msg: FakeMessage, *, gateway: bool = False) -> JSON:
    author: JSON
    if msg.from_webhook:
        author = FakeUser(
            id=msg.webhook_id or 0, username=msg.username or "webhook", bot=True
        ).to_payload()
        author["discriminator"] = "0000"
    else:
        author = msg.author.to_payload()
    data: JSON = {
        "id": str(msg.id),
        "channel_id": str(msg.channel_id),
        "author": author,
        "content": msg.content,
        "timestamp": msg.timestamp,
        "edited_timestamp": msg.edited_timestamp,
        "tts": msg.tts,
        "mention_everyone": False,
        "mentions": [u.to_payload() for u in msg.mentions],
        "mention_roles": [],
        "attachments": list(msg.attachments),
        "embeds": list(msg.embeds),
        "pinned": False,
        "type": msg.type,
        "flags": msg.flags,
        "components": list(msg.components),
    }
    if msg.webhook_id is not None:
        data["webhook_id"] = str(msg.webhook_id)
    if msg.nonce is not None:
        data["nonce"] = msg.nonce
    if msg.application_id is not None:
        data["application_id"] = str(msg.application_id)
    if msg.message_reference is not None:
        ref = dict(msg.message_reference)
        ref.setdefault("channel_id", str(msg.channel_id))
        if msg.guild_id is not None:
            ref.setdefault("guild_id", str(msg.guild_id))
        data["message_reference"] = ref
    if msg.reactions:
        data["reactions"] = [
            {
                "emoji": {"id": None, "name": e},
                "count": 1,
                "me": True,
                "count_details": {"burst": 0, "normal": 1},
            }
            for e in dict.fromkeys(msg.reactions)
        ]
    if msg.interaction_id is not None:
        rec = fake.interactions.get(msg.interaction_id)
        if rec is not None:
            data["interaction_metadata"] = {
                "id": str(rec.id),
                "type": rec.type,
                "user": fake.users[rec.user_id].to_payload(),
                "authorizing_integration_owners": rec.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if rec.source_message_id is not None:
                data["interaction_metadata"]["interacted_message_id"] = str(rec.source_message_id)
    if msg.thread_id is not None and msg.thread_id in fake.channels:
        data["thread"] = channel(fake, fake.channels[msg.thread_id])
    if gateway and msg.guild_id is not None:
        data["guild_id"] = str(msg.guild_id)
        guild = fake.guilds.get(msg.guild_id)
        member = guild.members.get(msg.author.id) if guild and not msg.from_webhook else None
        if member is not None:
            data["member"] = member.to_payload(include_user=False)
    return data


def application(fake: StandinState) -> JSON:
    return {
        "id": str(fake.application_id),
        "name": fake.bot_user.username,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "rpc_origins": [],
        "bot_public": True,
        "bot_require_code_grant": False,
        "bot": fake.bot_user.to_payload(),
        "owner": fake.owner.to_payload(),
        "team": None,
        "verify_key": "0" * 64,
        "flags": fake.application_flags,
        "hook": True,
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "approximate_guild_count": len(fake.guilds),
        "integration_types_config": {"0": {}},
        "tags": [],
    }


def guild(fake: StandinState, g: FakeGuild) -> JSON:
    return {
        "id": str(g.id),
        "name": g.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(g.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [r.to_payload() for r in g.roles.values()],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": g.locale,
        "nsfw_level": 0,
        "max_members": 500000,
        "max_video_channel_users": 25,
    }


def guild_create(fake: StandinState, g: FakeGuild) -> JSON:
    chans = [fake.channels[c] for c in g.channel_ids]
    data = guild(fake, g)
    data.update(
        joined_at=iso_now(),
        large=False,
        unavailable=False,
        member_count=len(g.members),
        voice_states=[],
        # without the GUILD_MEMBERS intent Discord sends only the bot's own member
        members=[g.members[fake.bot_user.id].to_payload()] if fake.bot_user.id in g.members else [],
        channels=[channel(fake, c) for c in chans if not c.is_thread],
        threads=[channel(fake, c) for c in chans if c.is_thread and not c.archived],
        presences=[],
        stage_instances=[],
        guild_scheduled_events=[],
        soundboard_sounds=[],
    )
    return data


def interaction(
    fake: StandinState,
    iid: int,
    token: str,
    itype: int,
    ch: FakeChannel,
    user: FakeUser,
    data: JSON,
    msg: FakeMessage | None,
    locale: str,
) -> JSON:
    payload: JSON = {
        "id": str(iid),
        "application_id": str(fake.application_id),
        "type": itype,
        "data": data,
        "token": token,
        "version": 1,
        "locale": locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": 10 * 1024 * 1024,
        "channel_id": str(ch.id),
    }
    chan = channel(fake, ch)
    if ch.guild_id is not None:
        g = fake.guilds[ch.guild_id]
        perms = fake.member_permissions(g.id, user.id)
        chan["permissions"] = str(perms)
        payload.update(
            guild_id=str(g.id),
            guild={"id": str(g.id), "locale": g.locale, "features": []},
            guild_locale=g.locale,
            member=g.members[user.id].to_payload(permissions=perms),
            app_permissions=str(fake.bot_permissions(g.id)),
            context=0,
            authorizing_integration_owners={"0": str(g.id)},
        )
    else:
        payload.update(
            user=user.to_payload(),
            # an approximation of what the app may do in its own DM
            app_permissions=str(DM_APP_PERMISSIONS),
            context=1,
            authorizing_integration_owners={"0": "0"},
        )
    payload["channel"] = chan
    if msg is not None:
        payload["message"] = message(fake, msg)
    return payload
