//! google-adk for the tests that run it (folder mode): its venv, and a copy of the fixture app.

use std::path::{Path, PathBuf};

/// The venv with google-adk (`make unit` makes it; EVALSTUDIO_ADK_VENV points at another).
pub fn adk_venv() -> PathBuf {
    let venv = std::env::var_os("EVALSTUDIO_ADK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/evalstudio/venv"));
    assert!(
        venv.join("bin/adk").is_file(),
        "no google-adk in {}: run `make unit`, or set EVALSTUDIO_ADK_VENV",
        venv.display()
    );
    venv
}

/// Copies tests/fixtures/agents/weather's files into `agents_dir/weather`.
pub fn copy_weather_app(agents_dir: &Path) -> PathBuf {
    let weather = agents_dir.join("weather");
    std::fs::create_dir_all(&weather).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/weather");
    for entry in std::fs::read_dir(fixture).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, weather.join(path.file_name().unwrap())).unwrap();
        }
    }
    weather
}
