//! Compiles `loa.proto` with protox (pure Rust, so no system `protoc`) and generates the tonic
//! client and server.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=loa.proto");
    let fds = protox::compile(["loa.proto"], ["."])?;
    // Prost's codec with each message's buffer reserved whole (see src/codec.rs).
    tonic_prost_build::configure().codec_path("crate::codec::ReservingCodec").compile_fds(fds)?;
    Ok(())
}
