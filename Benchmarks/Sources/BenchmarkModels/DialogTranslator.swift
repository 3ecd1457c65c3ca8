/// Converts ``Dialog`` ↔ ``DialogEntity`` by hand, delegating each message to
/// ``MessageTranslator`` as app code would.
public enum DialogTranslator: ModelTranslator {
    public static func entity(from dialog: Dialog) -> DialogEntity {
        let entity = DialogEntity()
        entity.id = dialog.id
        entity.isPinned = dialog.isPinned
        entity.title = dialog.title
        entity.messages = dialog.messages.map(MessageTranslator.entity(from:))
        entity.tags = dialog.tags
        return entity
    }

    public static func plain(from entity: DialogEntity) -> Dialog {
        Dialog(
            id: entity.id,
            isPinned: entity.isPinned,
            title: entity.title,
            messages: entity.messages.map(MessageTranslator.plain(from:)),
            tags: entity.tags
        )
    }
}
