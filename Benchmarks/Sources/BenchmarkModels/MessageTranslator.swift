/// Converts ``Message`` ↔ ``MessageEntity`` field by field, the way it is written by hand in apps
/// without a mapper.
public enum MessageTranslator: ModelTranslator {
    public static func entity(from message: Message) -> MessageEntity {
        let entity = MessageEntity()
        entity.id = message.id
        entity.date = message.date
        entity.text = message.text
        entity.senderId = message.senderId
        entity.receiverId = message.receiverId
        entity.type = message.type
        entity.isIncoming = message.isIncoming
        entity.isRead = message.isRead
        entity.attachment = message.attachment
        entity.note = message.note
        return entity
    }

    public static func plain(from entity: MessageEntity) -> Message {
        Message(
            id: entity.id,
            date: entity.date,
            text: entity.text,
            senderId: entity.senderId,
            receiverId: entity.receiverId,
            type: entity.type,
            isIncoming: entity.isIncoming,
            isRead: entity.isRead,
            attachment: entity.attachment,
            note: entity.note
        )
    }
}
