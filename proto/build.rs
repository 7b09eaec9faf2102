//! Compiles the protocol's `.proto` files with protox (pure Rust, so no system `protoc`) and
//! generates the tonic clients and servers.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=loa.proto");
    println!("cargo:rerun-if-changed=v1.proto");
    let fds = protox::compile(["loa.proto", "v1.proto"], ["."])?;
    // Prost's codec, each message's buffer reserved whole (see src/codec.rs).
    tonic_prost_build::configure().codec_path("crate::codec::ReservingCodec").compile_fds(fds)?;
    Ok(())
}
