import BenchmarkModels

/// The hand-written translator, as a ``Conversion``.
struct ManualConversion<Translator: ModelTranslator>: Conversion {
    func entity(from plain: Translator.Plain) -> Translator.Entity {
        Translator.entity(from: plain)
    }

    func plain(from entity: Translator.Entity) -> Translator.Plain {
        Translator.plain(from: entity)
    }
}
